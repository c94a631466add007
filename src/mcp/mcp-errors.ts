import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

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

/** Turns whatever calling an upstream threw into the error the downstream client gets. */
export function upstreamFailure(error: unknown, gateway: string, timeoutMs: number): RpcError {
  if (error instanceof RpcError) return error;
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
    // A JSON-RPC error the upstream itself sent: pass it through as it was.
    return new RpcError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data);
  }
  const reason = error instanceof Error ? describe(error) : String(error);
  return new RpcError(UPSTREAM_UNAVAILABLE, `Upstream '${gateway}' is unavailable: ${reason}`);
}

function describe(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? `${cause.message}` : '';
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}
