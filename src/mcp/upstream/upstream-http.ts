import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  McpError,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/sdk/types.js';
import { type Dispatcher } from 'undici';
import { CallTimer } from './call-timer';
import { SseParser } from './sse-parser';

/** An upstream Streamable HTTP endpoint of one upstream session. */
export interface UpstreamChannel {
  dispatcher: Dispatcher;
  url: URL;
  /** Credentials, Mcp-Session-Id and MCP-Protocol-Version. */
  headers: Record<string, string>;
}

export interface PostRequestOptions {
  timeoutMs: number;
  /** Cancellation by the downstream client. */
  signal: AbortSignal;
  /**
   * Notifications and requests the upstream sends before its answer. For a request, the promise of
   * its answer: the timeout is paused until it settles, as the wait is on the client, not upstream.
   */
  onMessage(message: JSONRPCMessage): Promise<unknown> | void;
}

const ERROR_BODY_LIMIT = 2048;

/**
 * POSTs one JSON-RPC request and returns the upstream's answer. This is the tools/call hot path:
 * undici's pooled keep-alive connections and a plain SSE parser, instead of fetch and web streams.
 * Failures are thrown as the SDK client would throw them (McpError for timeouts,
 * StreamableHTTPError for HTTP statuses), so one mapping serves both paths.
 */
export async function postRequest(
  channel: UpstreamChannel,
  message: JSONRPCRequest,
  options: PostRequestOptions,
): Promise<JSONRPCResponse> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = new CallTimer(options.timeoutMs, () => {
    timedOut = true;
    abort.abort();
  });
  const cancel = () => abort.abort();
  options.signal.addEventListener('abort', cancel, { once: true });
  try {
    const response = await post(channel, message, abort.signal);
    if (response.statusCode >= 400) {
      const text = (await response.body.text()).slice(0, ERROR_BODY_LIMIT);
      throw new StreamableHTTPError(response.statusCode, `Error POSTing to endpoint: ${text}`);
    }
    const type = String(response.headers['content-type'] ?? '');
    if (type.includes('text/event-stream')) {
      const parser = new SseParser();
      response.body.setEncoding('utf8');
      for await (const chunk of response.body) {
        for (const data of parser.push(chunk as string)) {
          const incoming = JSON.parse(data) as JSONRPCMessage;
          if (
            'id' in incoming &&
            incoming.id === message.id &&
            ('result' in incoming || 'error' in incoming)
          ) {
            response.body.destroy();
            return incoming;
          }
          const clientAnswer = options.onMessage(incoming);
          if (clientAnswer) timer.pauseFor(clientAnswer);
          timer.restart();
        }
      }
      throw new Error('the upstream closed the stream without answering');
    }
    const answer = (await response.body.json()) as JSONRPCResponse;
    if (typeof answer !== 'object' || answer === null || answer.id !== message.id) {
      throw new Error('the upstream answered with something other than the response');
    }
    return answer;
  } catch (error) {
    if (timedOut) throw new McpError(ErrorCode.RequestTimeout, 'Request timed out');
    if (options.signal.aborted) throw new McpError(ErrorCode.ConnectionClosed, 'Request cancelled');
    throw error;
  } finally {
    timer.stop();
    options.signal.removeEventListener('abort', cancel);
  }
}

function post(
  channel: UpstreamChannel,
  message: JSONRPCMessage,
  signal?: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  return channel.dispatcher.request({
    origin: channel.url.origin,
    path: channel.url.pathname + channel.url.search,
    method: 'POST',
    headers: {
      ...channel.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
    signal,
  });
}

/** POSTs a notification or a response (answered with 202). */
export async function postMessage(
  channel: UpstreamChannel,
  message: JSONRPCMessage,
): Promise<void> {
  const response = await post(channel, message);
  await response.body.dump();
  if (response.statusCode >= 400)
    throw new StreamableHTTPError(response.statusCode, 'Error POSTing to endpoint');
}
