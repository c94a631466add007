import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolRequest,
  ErrorCode,
  type JSONRPCErrorResponse,
  McpError,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets, redactValue } from '../common/redact';
import { upstreamError } from '../upstream/upstream-error';

/** Implementation-defined JSON-RPC server error: the upstream could not be reached or dropped. */
export const UPSTREAM_UNAVAILABLE = -32010;

/**
 * A JSON-RPC error whose message goes out verbatim (the SDK's McpError prefixes its message with
 * "MCP error <code>:", which would stack up when passing an upstream's error through).
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function unknownTool(name: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

/** The upstream no longer knows our session (it restarted) and ran nothing; a new one may retry. */
export class UpstreamSessionGone extends RpcError {
  constructor(gateway: string) {
    super(UPSTREAM_UNAVAILABLE, `Upstream '${gateway}' lost the session`);
  }
}

/**
 * Turns whatever calling an upstream threw into the error the downstream client gets; `secrets`
 * (the credentials sent) are cut out of any text the upstream or the network supplied.
 */
export function upstreamFailure(
  error: unknown,
  gateway: string,
  timeoutMs: number,
  secrets: readonly string[] = [],
): RpcError {
  if (error instanceof UpstreamSessionGone) return error;
  // An upstream's JSON-RPC error answer, passed through, less any credential it echoes.
  if (error instanceof RpcError) return redacted(error, secrets);
  if (error instanceof StreamableHTTPError && error.code === 404)
    return new UpstreamSessionGone(gateway);
  if (error instanceof McpError) {
    if (error.code === (ErrorCode.RequestTimeout as number)) {
      return new RpcError(
        ErrorCode.RequestTimeout,
        `Upstream '${gateway}' did not answer within ${timeoutMs} ms`,
      );
    }
    if (error.code === (ErrorCode.ConnectionClosed as number)) {
      return new RpcError(UPSTREAM_UNAVAILABLE, `Upstream '${gateway}' closed the connection`);
    }
    return redacted(new RpcError(error.code, unprefixed(error), error.data), secrets);
  }
  const reason = upstreamError(error, timeoutMs, secrets).message;
  return new RpcError(UPSTREAM_UNAVAILABLE, `Upstream '${gateway}' is unavailable: ${reason}`);
}

function redacted(error: RpcError, secrets: readonly string[]): RpcError {
  if (secrets.length === 0) return error;
  return new RpcError(
    error.code,
    redactSecrets(error.message, secrets),
    redactValue(error.data, secrets),
  );
}

/** The error answer to a request that threw; anything unexpected becomes a bare internal error. */
export function errorResponse(id: RequestId, error: unknown): JSONRPCErrorResponse {
  const known = error instanceof RpcError || error instanceof McpError;
  return {
    jsonrpc: '2.0',
    id,
    error: known
      ? {
          code: error.code,
          message: error instanceof McpError ? unprefixed(error) : error.message,
          ...(error.data === undefined ? {} : { data: error.data }),
        }
      : { code: ErrorCode.InternalError, message: 'Internal error' },
  };
}

/** tools/call params, checked only as far as routing needs; the upstream validates arguments. */
export function callParams(params: unknown): CallToolRequest['params'] {
  const candidate = params as Partial<CallToolRequest['params']> | undefined;
  if (typeof candidate?.name !== 'string')
    throw new RpcError(ErrorCode.InvalidParams, 'tools/call needs a tool name');
  const args = candidate.arguments;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new RpcError(ErrorCode.InvalidParams, 'tools/call arguments must be an object');
  }
  return candidate as CallToolRequest['params'];
}

/** The SDK's McpError prefixes "MCP error <code>: " to the message it was given; drop that again. */
function unprefixed(error: McpError): string {
  return error.message.replace(/^MCP error -?\d+: /, '');
}
