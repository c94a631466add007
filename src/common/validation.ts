import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Type, type ClassConstructor } from 'class-transformer';
import {
  IsObject,
  ValidateIf,
  ValidateNested,
  validate,
  type ValidatorOptions,
} from 'class-validator';
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

/**
 * A field that may be left out. Unlike class-validator's IsOptional it does not let null through,
 * so null reaches a service only where a field documents it (and keeps IsOptional).
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/**
 * A nested DTO. An array is refused: class-transformer would turn `[]` into an empty array of the
 * DTO, which ValidateNested accepts, and the service would take it for "no value".
 */
export function NestedObject(type: () => ClassConstructor<object>): PropertyDecorator {
  return applyDecorators(
    IsObject({ message: ({ property }) => `${property} must be an object` }),
    ValidateNested(),
    Type(type),
  );
}
