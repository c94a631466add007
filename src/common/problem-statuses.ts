import { type HttpStatus } from '@nestjs/common';
import { type DomainException, isDomainException } from './domain.exception';

/** A feature's exception class, whose instances carry codes of one enum. */
type DomainExceptionClass<Code extends string> = new (
  code: Code,
  message: string,
  details?: Record<string, unknown>,
) => DomainException<Code>;

const statusesByClass = new Map<object, Readonly<Record<string, HttpStatus>>>();

/**
 * Each feature registers the HTTP status of every code of its exception, beside the class, so
 * that the problem filter in common knows no feature. A `Record` over the enum is exhaustive: a
 * code added without a status does not compile.
 */
export function registerProblemStatuses<Code extends string>(
  exception: DomainExceptionClass<Code>,
  statuses: Readonly<Record<Code, HttpStatus>>,
): void {
  statusesByClass.set(exception, statuses);
}

/** The registered status of a domain failure, or undefined for anything else. */
export function problemStatusOf(error: unknown): number | undefined {
  if (!isDomainException(error)) return undefined;
  return statusesByClass.get(error.constructor)?.[error.code];
}
