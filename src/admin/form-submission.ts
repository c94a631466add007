import { type ClassConstructor } from 'class-transformer';
import { validateDto } from '../common/validation';
import { type FormErrors, formErrors } from './form-errors';

export type Submission<R> = { ok: true; result: R } | { ok: false; errors: FormErrors };

/**
 * Validates a form's input as the REST API's DTO and hands it to the service, exactly as the API
 * would. Validation failures, conflicts and the form's own parsing errors (`own`) come back
 * together as form errors; anything else (a missing record, a bug) is thrown on.
 */
export async function submitForm<T extends object, R>(
  type: ClassConstructor<T>,
  input: Record<string, unknown>,
  options: { own?: Record<string, string>; aliases?: Record<string, string> },
  action: (dto: T) => Promise<R>,
): Promise<Submission<R>> {
  const own = options.own ?? {};
  let dto: T | null = null;
  let failure: FormErrors | null = null;
  try {
    dto = await validateDto(type, input);
  } catch (error) {
    failure = formErrors(error, options.aliases);
    if (!failure) throw error;
  }
  if (Object.keys(own).length > 0) {
    failure = {
      fields: { ...failure?.fields, ...own },
      message: 'Some fields need correcting.',
      status: 422,
    };
  }
  if (failure || !dto) return { ok: false, errors: failure! };
  try {
    return { ok: true, result: await action(dto) };
  } catch (error) {
    const errors = formErrors(error, options.aliases);
    if (!errors) throw error;
    return { ok: false, errors };
  }
}
