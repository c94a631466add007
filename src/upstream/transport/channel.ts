import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/client';
import { type UpstreamFailure, UpstreamTimeout } from '../upstream-error';
import { type MessageLimits } from './message-bounds';
import { type UpstreamDispatchers } from './upstream-pools.service';

/** What a request's exchange hands back before its answer. */
export interface ChannelRequestOptions {
  /** Aborts the request; the channel rejects with the signal's reason. */
  signal: AbortSignal;
  /** A message the upstream sent about this request before answering it. */
  onMessage: (message: JSONRPCRequest | JSONRPCNotification) => void;
  /** 2026-07-28 request headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); only HTTP sends them. */
  headers?: Record<string, string>;
  /** A request answered only when it ends (a listen): kept off the pool that calls use. */
  longLived?: boolean;
}

/** Where a channel delivers what belongs to no request of its own. */
export interface ChannelListener {
  /** A message outside any request's exchange (the session's stream, or a stdio/SSE pipe). */
  message(message: JSONRPCRequest | JSONRPCNotification): void;
  /** The channel can no longer be used. */
  lost(reason: UpstreamFailure): void;
}

/**
 * One upstream session's wire: Streamable HTTP, the older HTTP+SSE, or a stdio pipe. It moves
 * JSON-RPC messages and knows nothing of MCP beyond what its transport needs.
 */
export interface Channel {
  /** Opens the wire; messages outside requests go to `listener` from now on. */
  start(listener: ChannelListener): Promise<void>;
  /** Sends a request and resolves with its response, whatever the upstream sent first. */
  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse>;
  /** Sends a notification, or a response to an upstream's request. */
  send(message: JSONRPCNotification | JSONRPCResponse): Promise<void>;
  /** The handshake is over: later messages carry the negotiated version. */
  established(protocolVersion: string): void;
  /** Opens what carries the upstream's messages outside requests, once it is initialized. */
  listen(): Promise<void>;
  /** Ends the session upstream (best effort) and the wire. */
  close(): Promise<void>;
}

/**
 * A channel that does not open in time (an event stream an upstream accepts and never answers)
 * fails as a timeout, which `expired` reports.
 */
export async function startWithin(
  starting: Promise<void>,
  timeoutMs: number,
  expired: (failure: UpstreamFailure) => void,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const failure = new UpstreamTimeout(timeoutMs);
      expired(failure);
      reject(failure);
    }, timeoutMs);
  });
  try {
    await Promise.race([starting, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A Streamable HTTP channel's upstream. */
export interface HttpChannelOptions {
  url: URL;
  dispatchers: UpstreamDispatchers;
  /** Credentials: sent with every request, never logged. */
  headers: Record<string, string>;
  /** An OAuth upstream: the bearer token is asked for per request, since it is refreshed. */
  bearer?: BearerSource;
  /** How large and deep each message the upstream sends may be. */
  limits: MessageLimits;
  /**
   * A 2026-07-28 upstream: no session, this version on every request, and a 4xx that carries a
   * JSON-RPC error (-32022, -32601, -32020...) is that error, the upstream's own answer.
   */
  modernVersion?: string;
}

/** The current access token; `stale` is one the upstream refused, never to be handed out again. */
export interface BearerSource {
  token(stale?: string): Promise<string>;
  /**
   * The upstream refused the token as too narrow (403 `insufficient_scope`, RFC 6750), asking
   * for `scope`: what to throw, since only a new authorization can grant more.
   */
  tooNarrow(scope: string | undefined): Promise<UpstreamFailure>;
}

/** How one HTTP request of a channel goes out. */
export interface HttpRequestExtras {
  signal?: AbortSignal;
  /** A request answered only when it ends (a listen): kept off the pool that calls use. */
  longLived?: boolean;
  lastEventId?: string;
  headers?: Record<string, string>;
}
