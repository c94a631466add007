import { registerDecorator, type ValidationArguments } from 'class-validator';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function envMapProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'must be an object';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 64) return 'must contain at most 64 variables';
  for (const [name, variable] of entries) {
    if (!ENV_NAME.test(name)) return `has an invalid variable name '${name}'`;
    if (typeof variable !== 'string' || variable.length > 8192 || variable.includes('\0'))
      return `variable '${name}' must be a string of at most 8192 characters`;
  }
  return null;
}

/** Environment variables of a stdio process: names a shell would accept, string values. */
export function IsEnvMap() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isEnvMap',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => envMapProblem(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${envMapProblem(args.value)}`,
      },
    });
}
