import { type ValidationError } from 'class-validator';

export interface FieldError {
  field: string;
  messages: string[];
}

/** A request body or query that failed DTO validation: 422 with one entry per field. */
export class RequestValidationException extends Error {
  readonly errors: FieldError[];

  constructor(errors: ValidationError[]) {
    const flat = flatten(errors);
    super(flat.map((error) => `${error.field}: ${error.messages.join(', ')}`).join('; '));
    this.errors = flat;
  }
}

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}
