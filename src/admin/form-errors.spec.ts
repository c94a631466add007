import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { RequestValidationException } from '../common/request-validation.exception';
import { validateDto } from '../common/validation';
import { GatewayCreateDto } from '../gateways/dto/gateway-create.dto';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { ServerErrorCode, ServerException } from '../servers/server.exception';
import { formErrors } from './form-errors';

async function validationError(plain: Record<string, unknown>): Promise<unknown> {
  try {
    await validateDto(GatewayCreateDto, plain);
  } catch (error) {
    return error;
  }
  throw new Error('expected validation to fail');
}

describe('formErrors', () => {
  it('puts DTO validation messages beside their fields, with aliases for nested ones', async () => {
    const error = await validationError({
      name: '',
      url: 'ftp://x',
      auth: { type: 'bearer', token: '' },
    });
    const errors = formErrors(error, { 'auth.token': 'token' });
    expect(errors?.status).toBe(422);
    expect(errors?.fields.name).toMatch(/name should not be empty/);
    expect(errors?.fields.url).toBe('url must be an absolute http(s) URL');
    expect(errors?.fields.token).toMatch(/token should not be empty/);
  });

  it('joins several messages of one field', () => {
    const errors = formErrors(
      new RequestValidationException([
        { property: 'name', constraints: { a: 'too long' }, children: [] },
        { property: 'name', constraints: { b: 'bad' }, children: [] },
      ]),
    );
    expect(errors?.fields).toEqual({ name: 'too long; bad' });
  });

  it('maps conflicts to the field they concern, with the API status', () => {
    expect(
      formErrors(new GatewayException(GatewayErrorCode.UrlTaken, 'URL used by Gateway 1')),
    ).toEqual({
      fields: { url: 'URL used by Gateway 1' },
      message: expect.any(String),
      status: 409,
    });
    expect(
      formErrors(new ServerException(ServerErrorCode.UnknownAlwaysLoaded, 'not a member: x'))
        ?.fields,
    ).toEqual({ alwaysLoaded: 'not a member: x' });
  });

  it('shows form-wide errors as the message', () => {
    const errors = formErrors(new AuthException(AuthErrorCode.TooManyAttempts, 'Too many'));
    expect(errors).toEqual({ fields: {}, message: 'Too many', status: 429 });
  });

  it('leaves missing records and unexpected errors to the error page', () => {
    expect(formErrors(new GatewayException(GatewayErrorCode.NotFound, 'gone'))).toBeNull();
    expect(formErrors(new Error('bug'))).toBeNull();
  });
});
