import { QueryFailedError } from 'typeorm';

/**
 * Whether an error means the database cannot be reached right now (refused, partitioned, restarting,
 * out of connections, too slow), as opposed to a bug or a constraint: the one place that decides
 * which failures become 503 with Retry-After, and which let a cache serve what it last knew.
 */

/** What clients are told to wait before they try again. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** What clients read when the database is unavailable. */
export const DATABASE_UNAVAILABLE_DETAIL =
  'The database is unavailable right now; try again in a few seconds.';

/** Errors raised by Portico's own database clients (see guarded-client.ts). */
const FROM_DATABASE = new WeakSet<object>();

/**
 * SQLSTATEs of a server that cannot serve: connection exceptions (class 08), administrator or
 * crash shutdown, starting up (57P01-57P03), too many connections, and a statement cancelled by
 * `statement_timeout` (57014).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/** Socket errors, counted only when a database client raised them (an upstream raises them too). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/** What `pg` and `pg-pool` throw themselves when a connection breaks or a timeout passes. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'The database did not answer within',
];

/** Marks an error as raised by a database client; returns it. */
export function fromDatabase<T>(error: T): T {
  if (typeof error === 'object' && error !== null) FROM_DATABASE.add(error);
  return error;
}

/** A failure Portico itself raises when the database does not answer in time. */
export class DatabaseTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`The database did not answer within ${ms} ms (${what})`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** Portico refused the query itself: the database does not answer its health probe. */
export class DatabaseUnreachableError extends Error {
  constructor() {
    super('The database does not answer (its health probe fails); the query was not sent');
    this.name = 'DatabaseUnreachableError';
  }
}

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Whether `error`, or what it wraps (TypeORM's `driverError`, a `cause`, an AggregateError's
 * `errors`), says the database is unreachable, refusing, restarting or too slow.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const queue: unknown[] = [error];
  const seen = new Set<object>();
  let tagged = false;
  // Bounded: a wrapped error is a short chain, and a cycle is not followed twice.
  while (queue.length > 0 && seen.size < 16) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof DatabaseTimeoutError || current instanceof DatabaseUnreachableError)
      return true;
    tagged ||= FROM_DATABASE.has(current);
    const { code, message, driverError, cause, errors } = current as ErrorShape;
    if (typeof code === 'string') {
      if (code.startsWith('08') || UNAVAILABLE_STATES.has(code)) return true;
      // ALLOW_CONNECTIONS false, and a database being dropped, say so with this generic state.
      if (code === '55000' && /not currently accepting connections/.test(String(message)))
        return true;
      if (tagged && SOCKET_CODES.has(code)) return true;
    }
    if (typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.startsWith(m)))
      return true;
    queue.push(driverError, cause, ...(Array.isArray(errors) ? (errors as unknown[]) : []));
  }
  return false;
}

/**
 * Whether the database refused what a statement carried (SQLSTATE class 22, data exceptions, or
 * 23, integrity violations, but for a unique key), rather than failing for want of a database.
 */
export function isDataRefusal(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: unknown }).code;
  return typeof code === 'string' && /^2[23]/.test(code) && code !== '23505';
}
