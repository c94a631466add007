import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets } from '../common/redact';

/** Upstream text lands in gateway records and problem documents; this keeps it readable. */
const MESSAGE_LIMIT = 500;

/**
 * Why talking to an upstream failed, in words an operator can act on. Services turn it into their
 * own coded exception (502); it never carries credentials, only what the upstream or the network said.
 */
export class UpstreamError extends Error {
  constructor(message: string) {
    super(clip(message));
    this.name = 'UpstreamError';
  }
}

/**
 * Explains any failure of an upstream exchange. `secrets` (the credentials sent) are cut out of the
 * explanation: an upstream may echo a request's headers in its error body, and the explanation is
 * stored on the gateway and shown to clients.
 */
export function upstreamError(
  error: unknown,
  timeoutMs: number,
  secrets: readonly string[] = [],
): UpstreamError {
  if (error instanceof UpstreamError) return error;
  return new UpstreamError(redactSecrets(explain(error, timeoutMs), secrets));
}

function explain(error: unknown, timeoutMs: number): string {
  if (error instanceof McpError) {
    if (error.code === Number(ErrorCode.RequestTimeout)) return `no answer within ${timeoutMs} ms`;
    if (error.code === Number(ErrorCode.ConnectionClosed))
      return 'the connection closed before the upstream answered';
    return `the upstream answered with an error: ${error.message}`;
  }
  if (error instanceof StreamableHTTPError) {
    return error.code !== undefined && error.code > 0
      ? `HTTP ${error.code}: ${error.message}`
      : error.message;
  }
  // Errors from fetch and its body parsing come from Node's own realm, where `instanceof` against
  // this realm's classes fails (under jest's VM, for one), so these are recognised by shape.
  if (isErrorLike(error) && error.name === 'SyntaxError')
    return `the upstream sent invalid JSON (${error.message})`;
  if (isErrorLike(error) && error.name === 'ZodError')
    return `the upstream sent a malformed message (${error.message})`;
  return describe(error);
}

interface ErrorLike {
  name?: unknown;
  message: string;
  cause?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** fetch hides the network cause ("fetch failed"); the cause (ECONNREFUSED, ...) is what helps. */
function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && parts.length < 4) {
    const message = isErrorLike(current)
      ? current.message
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
