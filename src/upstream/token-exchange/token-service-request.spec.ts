import { type TokenExchangeSettings } from '../upstream-credentials';
import { readTokenResponse, tokenServiceRequest } from './token-service-request';

const settings: TokenExchangeSettings = {
  type: 'token-exchange',
  tokenUrl: 'https://sts.example.com/token',
  dialect: 'rfc8693',
  clientId: 'portico gw',
  clientSecret: 's3cr:t+',
  clientAuth: 'client_secret_basic',
  audience: 'reports',
  resource: 'https://reports.example.com/mcp',
  scope: 'reports.read',
  actor: true,
};

describe('tokenServiceRequest', () => {
  it('states an RFC 8693 exchange with the actor, and the client in Basic, form-encoded', () => {
    const { body, headers } = tokenServiceRequest(settings, {
      kind: 'exchange',
      subjectToken: 'caller',
      actorToken: 'portico',
    });
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'caller',
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'portico',
      actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'reports',
      resource: 'https://reports.example.com/mcp',
      scope: 'reports.read',
    });
    expect(headers.authorization).toBe(
      `Basic ${Buffer.from('portico+gw:s3cr%3At%2B').toString('base64')}`,
    );
  });

  it("states Entra's on-behalf-of, the client in the body", () => {
    const { body, headers } = tokenServiceRequest(
      { ...settings, dialect: 'entra-obo', clientAuth: 'client_secret_post', actor: false },
      { kind: 'exchange', subjectToken: 'caller' },
    );
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: 'caller',
      requested_token_use: 'on_behalf_of',
      scope: 'reports.read',
      client_id: 'portico gw',
      client_secret: 's3cr:t+',
    });
    expect(headers.authorization).toBeUndefined();
  });

  it("asks Portico's own token by client credentials", () => {
    const { body } = tokenServiceRequest(settings, { kind: 'own' });
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'client_credentials',
      audience: 'reports',
      resource: 'https://reports.example.com/mcp',
      scope: 'reports.read',
    });
  });
});

describe('readTokenResponse', () => {
  it('reads the token and when it expires', () => {
    expect(
      readTokenResponse(200, { access_token: 'x', token_type: 'Bearer', expires_in: 60 }, 1000),
    ).toEqual({ accessToken: 'x', expiresAt: 61_000 });
    expect(readTokenResponse(200, { access_token: 'x', token_type: 'N_A' }, 0)).toEqual({
      accessToken: 'x',
      expiresAt: null,
    });
  });

  it('says why the service refused, in one short line', () => {
    expect(
      readTokenResponse(400, { error: 'invalid_grant', error_description: 'no\r\nconsent' }),
    ).toEqual({ refused: 'invalid_grant: no consent' });
    expect(readTokenResponse(502, null)).toEqual({ refused: 'HTTP 502' });
    expect(readTokenResponse(200, { token_type: 'Bearer' })).toEqual({
      refused: 'the answer holds no access_token',
    });
    expect(readTokenResponse(200, { access_token: 'x', token_type: 'DPoP' })).toEqual({
      refused: "the token issued is of type 'DPoP', not a bearer token",
    });
  });
});
