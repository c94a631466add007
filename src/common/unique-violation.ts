import { QueryFailedError } from 'typeorm';

/** The constraint a statement violated, if it failed on a unique index (SQLSTATE 23505). */
export function uniqueViolation(error: unknown): string | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' ? (driverError.constraint ?? '') : null;
}
