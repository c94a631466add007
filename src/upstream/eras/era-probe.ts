import { type DiscoverResult } from '@modelcontextprotocol/client';
import { type ModernConnection } from '../modern/modern-connection';
import {
  type EraVerdict,
  sessionEraVerdict,
  UNSUPPORTED_PROTOCOL_VERSION,
  verdictOfDiscover,
  verdictOfUnsupported,
} from './protocol-era';
import { UpstreamFailure, UpstreamRpcError } from '../upstream-error';

export interface EraProbe {
  verdict: EraVerdict;
  /** The probe's own connection, when it can serve on (a modern HTTP upstream); else closed. */
  connection: ModernConnection | null;
  /** What `server/discover` said to the probe's authorization context. */
  discovered: DiscoverResult | null;
}

/**
 * Asks an upstream which era it speaks with a 2026-07-28 `server/discover`:
 * - a DiscoverResult decides by its `supportedVersions`, and so does a -32022 with `supported`;
 *   a result without them is a lenient 2025 server's, one whose list is no list speaks badly;
 * - over HTTP, any other refusal (a 4xx, a JSON-RPC error) means a 2025 server, but 401/403 are
 *   authorization, 408/425/429 "not now" and 5xx or no answer an outage: those decide nothing
 *   and fail the open;
 * - over stdio (a throw-away process, `pipe`), any error, an exit or a timeout means 2025.
 * Failing to start (no URL, a command off the allowlist) fails the open as before.
 */
export async function probeEra(
  open: () => Promise<ModernConnection>,
  pipe: boolean,
): Promise<EraProbe> {
  const connection = await open();
  let verdict: EraVerdict;
  let discovered: DiscoverResult | null = null;
  try {
    const result = await connection.discover();
    const listed: unknown = result?.supportedVersions;
    if (Array.isArray(listed)) {
      discovered = result;
      verdict = verdictOfDiscover(result);
    } else if (listed === undefined) verdict = sessionEraVerdict();
    else
      throw new UpstreamFailure(
        'protocol',
        'the upstream answered server/discover with supportedVersions that is no list of versions',
      );
  } catch (error) {
    await connection.close();
    return { verdict: verdictOfRefusal(error, pipe), connection: null, discovered: null };
  }
  if (verdict.era === '2026-07-28' && !pipe) return { verdict, connection, discovered };
  await connection.close();
  return { verdict, connection: null, discovered };
}

function verdictOfRefusal(error: unknown, pipe: boolean): EraVerdict {
  if (error instanceof UpstreamRpcError)
    return error.code === UNSUPPORTED_PROTOCOL_VERSION
      ? (verdictOfUnsupported(error.data) ?? sessionEraVerdict())
      : sessionEraVerdict();
  if (!(error instanceof UpstreamFailure)) throw error;
  if (error.kind === 'cancelled' || error.kind === 'internal' || error.kind === 'authorization')
    throw error;
  if (pipe || refused(error)) return sessionEraVerdict();
  throw error;
}

/** 4xx statuses that say "not now" (a timeout, too early, too many requests), not "not this". */
const NOT_NOW = new Set([408, 425, 429]);

/**
 * Whether the upstream answered by refusing the request, as against an outage, a cancellation,
 * an authorization failure or being busy: a JSON-RPC error, or an HTTP 4xx other than 401, 403
 * and those of NOT_NOW.
 */
export function refused(error: unknown): boolean {
  if (error instanceof UpstreamRpcError) return true;
  if (!(error instanceof UpstreamFailure) || error.kind !== 'http') return false;
  const status = error.status;
  return (
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 401 &&
    status !== 403 &&
    !NOT_NOW.has(status)
  );
}

/** Whether the upstream said "not now" over HTTP: the same request later may be answered. */
export function busy(error: unknown): boolean {
  return error instanceof UpstreamFailure && error.kind === 'http' && NOT_NOW.has(error.status!);
}

/** An `initialize` refused as a 2026-07-28-only server refuses it: the era may have changed. */
export function suggestsModern(error: unknown): boolean {
  if (error instanceof UpstreamRpcError) return error.code === UNSUPPORTED_PROTOCOL_VERSION;
  if (!(error instanceof UpstreamFailure)) return false;
  return (
    (error.kind === 'http' &&
      error.status === 400 &&
      error.message.includes(String(UNSUPPORTED_PROTOCOL_VERSION))) ||
    (error.kind === 'protocol' && error.message.includes('protocol version is not supported'))
  );
}
