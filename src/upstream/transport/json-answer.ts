import { type Readable } from 'node:stream';
import {
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { readChunks } from '../../common/read-body';
import { type ChannelRequestOptions } from './channel';
import { isJsonRpcResponse, type MessageLimits } from './message-bounds';
import { messageIn, messageTooLarge, parsedJson, parseMessage } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';

/**
 * The answer to request `id` in an `application/json` body. The body is one message, or several
 * on lines of their own, as they come (newline-delimited JSON, which the conformance suite's
 * reference server streams: a call's progress ahead of its answer, a listen's notifications for as
 * long as it lasts). Each line that arrives whole goes to `onMessage` at once unless it is a
 * response (see isAnswer); the read stops at the answer. A line that is no JSON at all (the first
 * of a pretty-printed message) makes the rest of the body one message, read to its end. What is
 * unread at any time is bounded like a message.
 */
export async function readJsonAnswer(
  body: Readable,
  limits: MessageLimits,
  id: RequestId,
  onMessage: ChannelRequestOptions['onMessage'],
): Promise<JSONRPCResponse | UpstreamFailure> {
  const decoder = new TextDecoder();
  const read = { pending: '', pendingBytes: 0, byLine: true };
  const state: { outcome: JSONRPCResponse | UpstreamFailure | null } = { outcome: null };
  const take = (message: JSONRPCMessage | UpstreamFailure) => {
    if (message instanceof UpstreamFailure) state.outcome = message;
    else if (isAnswer(message, id, onMessage)) state.outcome = message as JSONRPCResponse;
  };
  const stopped = await readChunks(body, (chunk) => {
    read.pendingBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    read.pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (let end = read.pending.indexOf('\n'); read.byLine && end !== -1;) {
      const line = read.pending.slice(0, end);
      const value = line.trim() === '' ? undefined : parsedJson(line);
      if (value instanceof UpstreamFailure) read.byLine = false;
      else {
        if (value !== undefined) take(messageIn(value, limits.maxDepth));
        read.pending = read.pending.slice(end + 1);
        read.pendingBytes -= Buffer.byteLength(line) + 1;
        if (state.outcome) return true;
        end = read.pending.indexOf('\n');
      }
    }
    if (read.pendingBytes <= limits.maxBytes) return false;
    state.outcome = messageTooLarge(limits.maxBytes);
    return true;
  });
  if (stopped && state.outcome instanceof UpstreamFailure) body.destroy();
  if (state.outcome) return state.outcome;
  const rest = read.pending + decoder.decode();
  if (rest.trim() !== '') take(parseMessage(rest, limits.maxDepth));
  return (
    state.outcome ??
    new UpstreamFailure('protocol', 'the upstream answered with something other than the response')
  );
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
