import {
  ProtocolErrorCode,
  type JSONRPCErrorResponse,
  type RequestId,
} from '@modelcontextprotocol/server';
import { createHash } from 'node:crypto';
import { JsonBodyRefusal } from '../../common/read-body';
import { isRequestId, JsonLimitError } from '../../common/json-value';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_DETAIL,
  isDatabaseUnavailable,
} from '../../common/database-errors';
import {
  UpstreamAuthorizationRequired,
  UpstreamFailure,
  UpstreamRefused,
  type UpstreamRpcError,
  UpstreamTimeout,
} from '../../upstream/upstream-error';
import { HEADER_MISMATCH } from '../../upstream/eras/protocol-era';
import { type HeaderMismatch } from '../../upstream/modern/mcp-param-headers';

/**
 * Implementation-defined JSON-RPC server error: the upstream could not be reached, dropped the
 * call, or refused it with an HTTP error; the same call again may succeed.
 */
export const UPSTREAM_UNAVAILABLE = -32010;

/** Implementation-defined: a hook refused the call or failed, or a person did not approve it. */
export const TOOL_CALL_REFUSED = -32011;

/**
 * Implementation-defined: the upstream is there and answered, but with a message Portico cannot
 * use (not JSON-RPC, a result or error of the wrong shape, past a limit). Unlike -32010, sending
 * the same again is not expected to help.
 */
export const UPSTREAM_PROTOCOL_ERROR = -32012;

/**
 * Implementation-defined: a rate limit refused the call. `data.retryAfterSeconds` says when to
 * try again; the session itself goes on. In the range 2026-07-28 leaves to implementations
 * (-32000 to -32019; the codes above it are the specification's).
 */
export const RATE_LIMITED = -32014;

/**
 * Implementation-defined: what a request sent its client before the answer fell more than
 * STREAM_BACKLOG_BYTES behind (the client stopped reading, or the messages came faster than they
 * could be kept for resumption); Portico cancelled the request upstream.
 */
export const STREAM_BEHIND = -32015;

/** A 2026-07-28 client's -32021: the request needs a capability the client did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;

/**
 * Implementation-defined: Portico's database was unavailable for what the request needed (nothing
 * upstream failed). `data.retryAfterSeconds` says when to try again; the session goes on.
 */
export const DATABASE_UNAVAILABLE = -32013;

/**
 * The connection or session is gone (the v1 SDK's `ConnectionClosed`; v2 dropped the name, the
 * 2025 wire keeps the code, and clients of that era know it).
 */
export const CONNECTION_CLOSED = -32000;

/** The request timed out (the v1 SDK's `RequestTimeout`, kept on the 2025 wire like the above). */
export const REQUEST_TIMEOUT = -32001;

/** MCP's JSON-RPC error for an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error to answer with. Its message goes out verbatim (the SDK's McpError prefixes
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

/**
 * A request refused at the HTTP level (headers, session, method): the status, with the JSON-RPC
 * error body the SDK's own transports send.
 */
export class McpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number = ProtocolErrorCode.InvalidRequest,
    readonly id: RequestId | null = null,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** -32020: the request's headers and its body disagree (a 2026-07-28 request, SEP-2243). */
export function headerMismatch(id: RequestId, found: HeaderMismatch): McpRefusal {
  return new McpRefusal(
    400,
    `Bad Request: the request headers and body disagree: ${found.message}`,
    HEADER_MISMATCH,
    id,
    { mismatch: { header: found.header, body: found.message } },
  );
}

/** The id of a body that has a valid one, for the errors about it. */
export function idOf(body: unknown): RequestId | null {
  const id = (body as { id?: unknown } | null)?.id;
  return isRequestId(id) ? id : null;
}

/**
 * An error of an MCP endpoint as the refusal it answers with, or null for one that is no refusal
 * (a failure of Portico's own): a body refused as it was read is JSON-RPC's parse error when it
 * is not JSON, an invalid request (with its id) when it is too deep, and only its status else.
 */
export function refusalOf(error: unknown): McpRefusal | null {
  if (error instanceof McpRefusal) return error;
  if (!(error instanceof JsonBodyRefusal)) return null;
  switch (error.reason) {
    case 'not-json':
      return new McpRefusal(error.status, error.message, ProtocolErrorCode.ParseError);
    case 'too-deep':
      return new McpRefusal(
        error.status,
        error.message,
        ProtocolErrorCode.InvalidRequest,
        idOf(error.body),
      );
    case 'encoding':
    case 'too-large':
      return new McpRefusal(error.status, error.message);
  }
}

/** The one builder of JSON-RPC error bodies. */
export function jsonRpcError(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id: id as RequestId,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  };
}

/**
 * The error answer to a request that threw. A limit that the request's own data ran into says
 * which; anything else unexpected becomes a bare internal error (logged by whoever caught it).
 */
export function errorResponse(id: RequestId, error: unknown): JSONRPCErrorResponse {
  if (error instanceof RpcError) return jsonRpcError(id, error.code, error.message, error.data);
  if (isDatabaseUnavailable(error)) return databaseUnavailable(id);
  if (error instanceof JsonLimitError)
    return jsonRpcError(
      id,
      ProtocolErrorCode.InternalError,
      `The request could not be handled: ${error.message}`,
    );
  return jsonRpcError(id, ProtocolErrorCode.InternalError, 'Internal error');
}

/** The answer when the database was unavailable for what a request needed. */
export function databaseUnavailable(id: RequestId | null): JSONRPCErrorResponse {
  return jsonRpcError(id, DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE_DETAIL, {
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
}

/** The answer to a request whose stream fell behind (see STREAM_BEHIND). */
export function streamBehind(id: RequestId, limit: number): JSONRPCErrorResponse {
  return jsonRpcError(
    id,
    STREAM_BEHIND,
    `The request was cancelled: what it sent before its answer fell more than ${limit} bytes behind (the client did not read it, or it came faster than it could be kept)`,
  );
}

export function unknownTool(name: string): RpcError {
  return new RpcError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

export function invalidParams(message: string): RpcError {
  return new RpcError(ProtocolErrorCode.InvalidParams, message);
}

/**
 * What a failed upstream exchange becomes for the MCP client: the upstream's own JSON-RPC error
 * as it was (credentials cut out already), a timeout as such, a message it could not use as such,
 * an HTTP error as such, no answer at all as unavailable.
 */
export function fromUpstream(error: UpstreamFailure | UpstreamRpcError, gateway: string): RpcError {
  if (!(error instanceof UpstreamFailure))
    return new RpcError(error.code, error.message, error.data);
  switch (error.kind) {
    case 'timeout':
      return new RpcError(
        REQUEST_TIMEOUT,
        error instanceof UpstreamTimeout
          ? `Upstream '${gateway}' did not answer within ${error.timeoutMs} ms`
          : `Upstream '${gateway}' did not answer in time: ${error.message}`,
      );
    case 'session-expired':
      return new RpcError(UPSTREAM_UNAVAILABLE, `Upstream '${gateway}' lost the session`);
    case 'cancelled':
      return new RpcError(CONNECTION_CLOSED, 'Request cancelled');
    case 'authorization':
      return authorizationRequired(error, gateway);
    case 'internal':
      return new RpcError(
        ProtocolErrorCode.InternalError,
        `The request failed in Portico, not at upstream '${gateway}': ${error.message}`,
      );
    case 'protocol':
      // It is there, and answered: what it said is the fault, not its absence.
      return new RpcError(
        UPSTREAM_PROTOCOL_ERROR,
        `Upstream '${gateway}' answered with a message Portico cannot use: ${error.message}`,
      );
    case 'unreachable':
      return new RpcError(
        UPSTREAM_UNAVAILABLE,
        `Upstream '${gateway}' is unavailable: ${error.message}`,
        retryData(error, gateway),
      );
    case 'http':
      // It is there, and refused the call with an HTTP error: said as such; a later call may pass.
      return new RpcError(
        UPSTREAM_UNAVAILABLE,
        `Upstream '${gateway}' answered with an error: ${error.message}`,
        retryData(error, gateway),
      );
  }
}

/**
 * What a client can act on when Portico did not send the call (why, and when to try again), or
 * when the upstream answered 429 or 503 saying when to try again (its status, and when).
 */
function retryData(error: UpstreamFailure, gateway: string): Record<string, unknown> | undefined {
  const refused = error instanceof UpstreamRefused;
  if (!refused && !error.retryAt) return undefined;
  return {
    gateway,
    ...(refused ? { reason: error.reason } : { status: error.status }),
    retryAfterSeconds: error.retryAfterSeconds(),
    ...(error.retryAt ? { retryAt: error.retryAt.toISOString() } : {}),
  };
}

export function rateLimited(message: string, retryAfterSeconds: number, retryAt: string): RpcError {
  return new RpcError(RATE_LIMITED, message, { retryAfterSeconds, retryAt });
}

/** A hook refused the call (`refused`), or failed; either way the call did not go through. */
export function toolCallRefused(hook: string, message: string, refused: boolean): RpcError {
  return new RpcError(
    TOOL_CALL_REFUSED,
    refused
      ? `Refused by hook '${hook}': ${message}`
      : `Hook '${hook}' failed, so the call was refused: ${message}`,
    { hook },
  );
}

/**
 * The caller holds no token for an OAuth upstream: MCP's URL elicitation error (-32042), which
 * tells the client where the user connects their account; its message carries the link too, for
 * clients that only show text.
 */
function authorizationRequired(error: UpstreamFailure, gateway: string): RpcError {
  const url = error instanceof UpstreamAuthorizationRequired ? error.connectUrl : null;
  const message = url
    ? `Upstream '${gateway}' needs your authorization: ${error.message} Connect your account at ${url}`
    : `Upstream '${gateway}' needs authorization: ${error.message}`;
  if (!url) return new RpcError(UPSTREAM_UNAVAILABLE, message);
  return new RpcError(ProtocolErrorCode.UrlElicitationRequired, message, {
    elicitations: [
      {
        mode: 'url',
        elicitationId: createHash('sha256').update(url).digest('hex').slice(0, 32),
        url,
        message: `Connect your account at '${gateway}' to use its tools.`,
      },
    ],
  });
}
