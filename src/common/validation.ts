import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validate, type ValidatorOptions } from 'class-validator';
import { RequestValidationException } from './request-validation.exception';

/** The one set of validation rules, for the REST API's ValidationPipe and the admin forms alike. */
export const VALIDATION_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
};

/** Turns plain input into a validated DTO, or throws the API's RequestValidationException. */
export async function validateDto<T extends object>(
  type: ClassConstructor<T>,
  plain: Record<string, unknown>,
): Promise<T> {
  const dto = plainToInstance(type, plain);
  const errors = await validate(dto, VALIDATION_OPTIONS);
  if (errors.length > 0) throw new RequestValidationException(errors);
  return dto;
}
