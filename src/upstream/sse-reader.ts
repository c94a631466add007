import { type Readable } from 'node:stream';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { readChunks } from '../common/read-chunks';
import { UpstreamFailure } from './upstream-error';

/** The largest message an upstream may send in one event or JSON body. */
export const MAX_MESSAGE_CHARS = 32 * 1024 * 1024;

/** Where a read stream stopped, for resuming it with `Last-Event-ID` after `retryMs`. */
export interface StreamPosition {
  lastEventId?: string;
  retryMs?: number;
}

/**
 * Reads a `text/event-stream` body as the HTML spec parses it (BOM, CR/LF/CRLF, comments, `id`,
 * `retry`, events with empty data, which prime a stream for resumption and carry no message).
 * Each JSON-RPC message goes to `onMessage`; returning true from it stops the read. Resolves with
 * the stream's position when the body ends or the read stops.
 */
export async function readEventStream(
  body: Readable,
  onMessage: (message: JSONRPCMessage) => boolean,
  position: StreamPosition = {},
): Promise<StreamPosition> {
  const decoder = new TextDecoder();
  const state: { stop: boolean; failure: UpstreamFailure | null } = { stop: false, failure: null };
  const parser = createParser({
    maxBufferSize: MAX_MESSAGE_CHARS,
    onEvent: (event) => {
      if (state.stop || state.failure) return;
      if (event.id !== undefined) position.lastEventId = event.id;
      const message = messageOf(event);
      if (message instanceof UpstreamFailure) state.failure = message;
      else if (message) state.stop = onMessage(message);
    },
    onRetry: (ms) => (position.retryMs = ms),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded')
        state.failure = new UpstreamFailure(
          'protocol',
          'the upstream sent an event that is too large',
        );
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
function messageOf(event: EventSourceMessage): JSONRPCMessage | UpstreamFailure | null {
  if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return null;
  if (event.data.trim() === '{}') return null;
  return parseMessage(event.data);
}

/** A JSON-RPC message from upstream text, or the failure that says what was wrong with it. */
export function parseMessage(text: string): JSONRPCMessage | UpstreamFailure {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return new UpstreamFailure(
      'protocol',
      `the upstream sent invalid JSON (${(error as Error).message})`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return new UpstreamFailure(
      'protocol',
      'the upstream sent something other than a JSON-RPC message',
    );
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0')
    return new UpstreamFailure('protocol', 'the upstream sent a message without jsonrpc "2.0"');
  return message as JSONRPCMessage;
}

/** A JSON body, read to at most MAX_MESSAGE_CHARS. */
export async function readJsonBody(body: Readable): Promise<JSONRPCMessage | UpstreamFailure> {
  const decoder = new TextDecoder();
  let text = '';
  const tooLarge = await readChunks(body, (chunk) => {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    return text.length > MAX_MESSAGE_CHARS;
  });
  if (tooLarge)
    return new UpstreamFailure('protocol', 'the upstream sent a message that is too large');
  return parseMessage(text + decoder.decode());
}
