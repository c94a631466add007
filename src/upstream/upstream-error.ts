import { redactSecrets } from './redact-secrets';
import {
  type AdmissionOutcome,
  type AdmissionRules,
  type RefusalReason,
} from './resilience/concurrency-limiter';

/** Upstream text lands in gateway records, problem documents and MCP errors; this keeps it readable. */
const MESSAGE_LIMIT = 500;

/**
 * How an exchange with an upstream failed. Every caller (sync, REST invoke, the MCP endpoints)
 * maps from this one classification:
 * - `timeout`: no answer within the limit;
 * - `unreachable`: no connection, or it broke;
 * - `session-expired`: the upstream no longer knows the session and ran nothing (HTTP 404);
 * - `http`: any other HTTP refusal;
 * - `protocol`: the upstream sent something that is not MCP (bad JSON, a malformed message);
 * - `cancelled`: the caller gave up, or the connection was closed under the request;
 * - `authorization`: an OAuth upstream, and no usable token for whom the request acts;
 * - `internal`: Portico's own work on the exchange failed (a limit on the request, a bug); the
 *   upstream is not to blame, and its health and breaker must not count it.
 */
export type UpstreamFailureKind =
  | 'timeout'
  | 'unreachable'
  | 'session-expired'
  | 'http'
  | 'protocol'
  | 'cancelled'
  | 'authorization'
  | 'internal';

/**
 * A failure to talk to an upstream, in words an operator can act on. It never carries
 * credentials: its message is built once, with every credential sent cut out of it.
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly status?: number,
    /** When to try again, where that is known: the upstream's Retry-After, or Portico's own. */
    readonly retryAt: Date | null = null,
  ) {
    super(clip(message));
    this.name = 'UpstreamFailure';
  }

  /** The same failure with these secrets cut out of its text. */
  redacted(secrets: readonly string[]): UpstreamFailure {
    const message = redactSecrets(this.message, secrets);
    return message === this.message
      ? this
      : new UpstreamFailure(this.kind, message, this.status, this.retryAt);
  }

  /** Whole seconds until the upstream may be tried again (at least 1). */
  retryAfterSeconds(now = Date.now()): number {
    return this.retryAt ? Math.max(1, Math.ceil((this.retryAt.getTime() - now) / 1000)) : 1;
  }
}

/**
 * Whether the upstream answered, but with an HTTP error or with what is not MCP Portico can use
 * (an upstream's JSON-RPC error too, once `upstreamFailure` has made it a failure to report),
 * rather than not at all: its gateway is `failing`, not `unreachable`, and every error that
 * reports the failure says that it answered.
 */
export function answeredBadly(failure: UpstreamFailure): boolean {
  return (
    failure.kind === 'http' || failure.kind === 'protocol' || failure.kind === 'session-expired'
  );
}

/** A failure told in Portico's own words, which hold no credential: nothing to cut out of it. */
abstract class OwnWordsFailure extends UpstreamFailure {
  override redacted(): UpstreamFailure {
    return this;
  }
}

/** No answer within the time the exchange was given: the gateway's own, or the replica's. */
export class UpstreamTimeout extends UpstreamFailure {
  constructor(readonly timeoutMs: number) {
    super('timeout', `no answer within ${timeoutMs} ms`);
    this.name = 'UpstreamTimeout';
  }
}

/**
 * An OAuth upstream for which whoever the request acts for holds no usable token (never
 * connected, or the grant was revoked): `connectUrl` is where they connect their account.
 */
export class UpstreamAuthorizationRequired extends OwnWordsFailure {
  constructor(
    message: string,
    readonly connectUrl: string | null,
  ) {
    super('authorization', message, 401);
    this.name = 'UpstreamAuthorizationRequired';
  }
}

/**
 * A call Portico did not send: the upstream's circuit breaker is open, or too many calls to it
 * are running and waiting. Its kind stays `unreachable` (the upstream cannot be used now); it
 * says when to try again, when that is known.
 */
export class UpstreamRefused extends OwnWordsFailure {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    retryAt: Date | null,
  ) {
    super('unreachable', message, undefined, retryAt);
    this.name = 'UpstreamRefused';
  }
}

/**
 * A JSON-RPC error the upstream itself answered with. Not a failure of the exchange: it passes to
 * MCP clients as it came, less any credential the upstream echoed.
 */
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamRpcError';
  }

  redacted(secrets: readonly string[]): UpstreamRpcError {
    const data =
      this.data === undefined
        ? undefined
        : (JSON.parse(redactSecrets(JSON.stringify(this.data), secrets)) as unknown);
    return new UpstreamRpcError(this.code, redactSecrets(this.message, secrets), data);
  }
}

/**
 * Whatever an exchange with an upstream threw, as an UpstreamFailure (an upstream's own JSON-RPC
 * error stays an UpstreamRpcError). `secrets` are the credentials sent.
 */
export function classifyUpstreamError(
  error: unknown,
  timeoutMs: number,
  secrets: readonly string[] = [],
): UpstreamFailure | UpstreamRpcError {
  if (error instanceof UpstreamRpcError) return error.redacted(secrets);
  const failure =
    error instanceof UpstreamFailure
      ? error
      : isErrorLike(error) && error.name === 'TimeoutError'
        ? new UpstreamTimeout(timeoutMs)
        : isErrorLike(error) && error.name === 'SyntaxError'
          ? // Errors of JSON.parse and fetch come from Node's realm, where `instanceof` against this
            // realm's classes fails (under jest's VM, for one), so these are recognised by shape.
            new UpstreamFailure('protocol', `the upstream sent invalid JSON (${error.message})`)
          : isLocalError(error)
            ? new UpstreamFailure('internal', describe(error))
            : isMalformedResponse(error)
              ? new UpstreamFailure(
                  'protocol',
                  `the upstream answered with a malformed HTTP response (${describe(error)})`,
                )
              : new UpstreamFailure('unreachable', describe(error));
  return failure.redacted(secrets);
}

/**
 * Whether the upstream answered, but not in HTTP undici can read (headers past its limit, bytes
 * that are no HTTP): it is there, and speaks badly. A body cut short is left out: a crash
 * mid-answer cuts it the same way, and that is an outage.
 */
function isMalformedResponse(error: unknown): boolean {
  return (
    isErrorLike(error) &&
    (error.code === 'UND_ERR_HEADERS_OVERFLOW' || error.name === 'HTTPParserError')
  );
}

/** As classifyUpstreamError, for callers that only report: an RPC error becomes its message. */
export function upstreamFailure(
  error: unknown,
  timeoutMs: number,
  secrets: readonly string[] = [],
): UpstreamFailure {
  const classified = classifyUpstreamError(error, timeoutMs, secrets);
  return classified instanceof UpstreamFailure
    ? classified
    : new UpstreamFailure(
        'protocol',
        `the upstream answered with an error: ${classified.code} ${classified.message}`,
      );
}

/**
 * What an exchange's error says of the upstream, for its circuit breaker. Only failures that are
 * the upstream's own count against it: no answer, no connection, a 5xx (slow, but for a refused
 * connection, which fails at once). An answer of any kind, even an error or a 4xx, shows it is
 * there; a cancelled call, a malformed message, a missing token or Portico's own failure says
 * nothing.
 */
export function breakerOutcome(error: unknown): AdmissionOutcome {
  if (error === undefined || error instanceof UpstreamRpcError) return 'success';
  if (!(error instanceof UpstreamFailure) || error instanceof UpstreamRefused) return 'neutral';
  switch (error.kind) {
    case 'timeout':
      return 'slow-failure';
    case 'unreachable':
      return 'failure';
    case 'http':
      return error.status === undefined || error.status >= 500 ? 'slow-failure' : 'success';
    case 'session-expired':
      return 'success';
    case 'protocol':
    case 'cancelled':
    case 'authorization':
    case 'internal':
      return 'neutral';
  }
}

/** How an upstream's admission reads its errors, and refuses a call: as an UpstreamRefused. */
export const UPSTREAM_ADMISSION: AdmissionRules = {
  judge: breakerOutcome,
  refusal: (reason, message, retryAt) => new UpstreamRefused(reason, message, retryAt),
};

interface ErrorLike {
  name?: unknown;
  message: string;
  cause?: unknown;
  code?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/**
 * What Portico's own code threw rather than the network or the upstream: a stack overflow (a
 * recursive walk or JSON.stringify of something nested too deep) or a JSON limit refusing it.
 * Recognised by name: errors from Node's realm fail `instanceof` under jest's VM.
 */
function isLocalError(error: unknown): boolean {
  return isErrorLike(error) && (error.name === 'RangeError' || error.name === 'JsonLimitError');
}

/** fetch hides the network cause ("fetch failed"); the cause (ECONNREFUSED, ...) is what helps. */
function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && parts.length < 4) {
    const message = isErrorLike(current)
      ? current.message ||
        (typeof current.code === 'string' ? current.code : '') ||
        (typeof current.name === 'string' ? current.name : '')
      : typeof current === 'string'
        ? current
        : JSON.stringify(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = isErrorLike(current) ? current.cause : undefined;
  }
  return parts.length > 0 ? parts.join(': ') : 'unknown error';
}

function clip(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT)}…` : line;
}

/**
 * An upstream that speaks only versions of MCP that Portico does not: nothing was sent. Not an
 * outage: the gateway says "speaks only …", and a sync is refused with 422 rather than 502.
 */
export class UpstreamIncompatible extends OwnWordsFailure {
  constructor(
    message: string,
    readonly supportedVersions: readonly string[],
  ) {
    super('protocol', message);
    this.name = 'UpstreamIncompatible';
  }
}
