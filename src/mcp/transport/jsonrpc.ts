import {
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

// Structural checks only: the SDK's own guards parse whole messages with zod, which is wasted work
// on the hot path. Parameters are validated by the SDK's request handlers.

export type Incoming =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response'; message: JSONRPCResponse }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** What a POSTed body holds. Batches are not part of the 2025-06-18+ protocol and are refused. */
export function classify(body: unknown): Incoming {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      kind: 'invalid',
      id: null,
      reason: Array.isArray(body) ? 'Batches are not supported' : 'Not a JSON-RPC message',
    };
  }
  const message = body as Record<string, unknown>;
  const id = isId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  if (
    message.params !== undefined &&
    (typeof message.params !== 'object' || message.params === null)
  ) {
    return { kind: 'invalid', id, reason: 'params must be an object' };
  }
  if (typeof message.method === 'string') {
    if (message.id === undefined)
      return { kind: 'notification', message: message as JSONRPCNotification };
    if (id === null)
      return { kind: 'invalid', id: null, reason: 'id must be a string or an integer' };
    return { kind: 'request', message: message as JSONRPCRequest };
  }
  if (id !== null && ('result' in message || 'error' in message)) {
    return { kind: 'response', message: message as JSONRPCResponse };
  }
  return { kind: 'invalid', id, reason: 'Not a JSON-RPC request, notification or response' };
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCResponse {
  return 'id' in message && ('result' in message || 'error' in message);
}

export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}
