import { type Readable } from 'node:stream';
import {
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { isJsonObject } from '../../common/json-value';
import { readChunks } from '../../common/read-body';
import { checkedResponse } from '../../common/remote-body';
import { type ChannelRequestOptions } from './channel';
import { boundMessage, isJsonRpcResponse, type MessageLimits } from './message-bounds';
import { UpstreamFailure } from '../upstream-error';

/** Where a read stream stopped, for resuming it with `Last-Event-ID` after `retryMs`. */
export interface StreamPosition {
  lastEventId?: string;
  retryMs?: number;
}

/** The longest event id sent back as `Last-Event-ID`; SDK event stores make ids of under 100. */
const MAX_EVENT_ID = 1024;

/**
 * An event id that can go back as a header value: printable ASCII, bounded. Another id, sent back,
 * would fail the resumption with an error about something else.
 */
const RESUMABLE_ID = new RegExp(`^[\\x20-\\x7E]{0,${MAX_EVENT_ID}}$`);

/**
 * Reads a `text/event-stream` body as the HTML spec parses it (BOM, CR/LF/CRLF, comments, `id`,
 * `retry`, events with empty data, which prime a stream for resumption and carry no message).
 * Each JSON-RPC message goes to `onMessage`; returning true from it stops the read. Resolves with
 * the stream's position when the body ends or the read stops. An event past the limits fails it.
 */
export async function readEventStream(
  body: Readable,
  onMessage: (message: JSONRPCMessage) => boolean,
  limits: MessageLimits,
  position: StreamPosition = {},
): Promise<StreamPosition> {
  const decoder = new TextDecoder();
  const state: { stop: boolean; failure: UpstreamFailure | null } = { stop: false, failure: null };
  const parser = createParser({
    maxBufferSize: limits.maxBytes,
    onEvent: (event) => {
      if (state.stop || state.failure) return;
      if (event.id !== undefined && !RESUMABLE_ID.test(event.id)) {
        state.failure = new UpstreamFailure(
          'protocol',
          `the upstream sent an event id that cannot be sent back to resume its stream (over ${MAX_EVENT_ID} characters, or not printable ASCII)`,
        );
        return;
      }
      if (event.id !== undefined) position.lastEventId = event.id;
      const message = messageOf(event, limits.maxDepth);
      if (message instanceof UpstreamFailure) state.failure = message;
      else if (message) state.stop = onMessage(message);
    },
    onRetry: (ms) => (position.retryMs = ms),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') state.failure = eventTooLarge(limits.maxBytes);
    },
  });
  const stopped = await readChunks(body, (chunk) => {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    return state.failure !== null || state.stop;
  });
  if (!stopped) parser.feed(decoder.decode());
  if (state.failure) throw state.failure;
  return position;
}

/**
 * The event's message; null for one that carries none: priming (empty data), another event type,
 * or `{}`, which is how the SDK's event stores keep a priming event and may replay it on resumption.
 */
function messageOf(
  event: EventSourceMessage,
  maxDepth: number,
): JSONRPCMessage | UpstreamFailure | null {
  if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return null;
  if (event.data.trim() === '{}') return null;
  return parseMessage(event.data, maxDepth);
}

/**
 * A JSON-RPC message from upstream text, bounded in depth (see boundMessage), or the failure that
 * says what was wrong with it.
 */
export function parseMessage(text: string, maxDepth: number): JSONRPCMessage | UpstreamFailure {
  const value = parsedJson(text);
  return value instanceof UpstreamFailure ? value : messageIn(value, maxDepth);
}

/** Upstream text as JSON, or the failure that says it is none. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return new UpstreamFailure(
      'protocol',
      `the upstream sent invalid JSON (${(error as Error).message})`,
    );
  }
}

/** A parsed JSON value as a JSON-RPC message, bounded in depth, or what is wrong with it. */
function messageIn(value: unknown, maxDepth: number): JSONRPCMessage | UpstreamFailure {
  if (!isJsonObject(value))
    return new UpstreamFailure(
      'protocol',
      'the upstream sent something other than a JSON-RPC message',
    );
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0')
    return new UpstreamFailure('protocol', 'the upstream sent a message without jsonrpc "2.0"');
  return boundMessage(message as JSONRPCMessage, maxDepth);
}

function messageTooLarge(maxBytes: number): UpstreamFailure {
  return new UpstreamFailure(
    'protocol',
    `the upstream sent a message larger than ${maxBytes} bytes, past the limit (UPSTREAM_MESSAGE_LIMIT_BYTES)`,
  );
}

/**
 * An event stream's Response whose events may each be at most `maxBytes` (read by a parser of its
 * own, as the reader will): the body fails at the first larger one, before the reader (the SDK's
 * EventSource, on the HTTP+SSE transport) has buffered it, and `tooLarge` hears why (the reader
 * would only reconnect).
 */
export function eventsBounded(
  response: Response,
  maxBytes: number,
  tooLarge: (failure: UpstreamFailure) => void,
): Response {
  const decoder = new TextDecoder();
  let failure: UpstreamFailure | null = null;
  const parser = createParser({
    maxBufferSize: maxBytes,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') failure ??= eventTooLarge(maxBytes);
    },
  });
  return checkedResponse(response, (chunk) => {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (failure) tooLarge(failure);
    return failure;
  });
}

function eventTooLarge(maxBytes: number): UpstreamFailure {
  return new UpstreamFailure(
    'protocol',
    `the upstream sent an event larger than ${maxBytes} bytes, past the limit (UPSTREAM_MESSAGE_LIMIT_BYTES)`,
  );
}

/** Text that is more than whitespace, tested without copying it (as `trim` would, whole bodies). */
const HAS_CONTENT = /\S/;

/**
 * The answer to request `id` in an `application/json` body. The body is one message, or several
 * on lines of their own, as they come (newline-delimited JSON, which the conformance suite's
 * reference server streams: a call's progress ahead of its answer, a listen's notifications for as
 * long as it lasts). Each line that arrives whole goes to `onMessage` at once unless it is a
 * response (see isAnswer); the read stops at the answer. A line that is no JSON at all (the first
 * of a pretty-printed message) makes the rest of the body one message, read to its end. What is
 * unread at any time is bounded like a message. An error tied to no request (`id` null or absent,
 * as for a body the upstream could not parse) is the answer: the body answers one request.
 */
export async function readJsonAnswer(
  body: Readable,
  limits: MessageLimits,
  id: RequestId,
  onMessage: ChannelRequestOptions['onMessage'],
): Promise<JSONRPCResponse | UpstreamFailure> {
  const decoder = new TextDecoder();
  // The unread text is kept in pieces, joined only once a line is whole and searched only where it
  // is new: one long line arriving in many chunks, joined or searched at each, took seconds.
  const read = { pieces: [] as string[], bytes: 0, byLine: true, messages: 0 };
  const state: { outcome: JSONRPCResponse | UpstreamFailure | null } = { outcome: null };
  const take = (message: JSONRPCMessage | UpstreamFailure) => {
    if (message instanceof UpstreamFailure) state.outcome = message;
    else if (untiedError(message)) state.outcome = { ...message, id } as JSONRPCResponse;
    else if (isAnswer(message, id, onMessage)) state.outcome = message as JSONRPCResponse;
  };
  const stopped = await readChunks(body, (chunk) => {
    read.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (let end = text.indexOf('\n'); read.byLine && end !== -1; end = text.indexOf('\n')) {
      const line = read.pieces.join('') + text.slice(0, end);
      text = text.slice(end + 1);
      const value = HAS_CONTENT.test(line) ? parsedJson(line) : undefined;
      if (value instanceof UpstreamFailure) {
        read.byLine = false;
        read.pieces = [line, '\n'];
        break;
      }
      read.pieces = [];
      read.bytes -= Buffer.byteLength(line) + 1;
      if (value === undefined) continue;
      read.messages += 1;
      take(messageIn(value, limits.maxDepth));
      if (state.outcome) return true;
    }
    read.pieces.push(text);
    if (read.bytes <= limits.maxBytes) return false;
    state.outcome = messageTooLarge(limits.maxBytes);
    return true;
  });
  if (stopped && state.outcome instanceof UpstreamFailure) body.destroy();
  if (state.outcome) return state.outcome;
  const rest = read.pieces.join('') + decoder.decode();
  if (HAS_CONTENT.test(rest)) take(parseMessage(rest, limits.maxDepth));
  else if (read.messages === 0)
    return new UpstreamFailure('protocol', 'the upstream answered with an empty body');
  return (
    state.outcome ??
    new UpstreamFailure('protocol', 'the upstream answered with something other than the response')
  );
}

function untiedError(message: JSONRPCMessage): boolean {
  return 'error' in message && (!('id' in message) || message.id === null);
}

/**
 * Whether a message that came with a request's answer is that answer; any other that is no
 * response (a notification, or a request of the upstream's) goes to `onMessage`.
 */
export function isAnswer(
  incoming: JSONRPCMessage,
  id: RequestId,
  onMessage: ChannelRequestOptions['onMessage'],
): boolean {
  if (isJsonRpcResponse(incoming)) return incoming.id === id;
  onMessage(incoming);
  return false;
}
