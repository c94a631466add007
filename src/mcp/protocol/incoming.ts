import {
  ProtocolErrorCode,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/server';
import { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { nestingDepth } from '../../common/json-walk';
import { readChunks } from '../../common/read-chunks';
import { McpRefusal } from './mcp-errors';

// Structural checks only: the SDK's own guards parse whole messages with zod, which is wasted work
// on the hot path. Parameters are checked by the handler of each method.

export type Incoming =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'response'; message: JSONRPCResponse };

/** How large and how deeply nested a client's message may be (BODY_LIMIT_BYTES, JSON_MAX_DEPTH). */
export interface BodyLimits {
  maxBytes: number;
  maxDepth: number;
}

/** A header's first value, as it came. */
export function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The JSON-RPC message a client POSTed; every refusal is an McpRefusal with its status. */
export async function readIncoming(
  request: IncomingMessage,
  limits: BodyLimits,
): Promise<Incoming> {
  return incomingOf(await readBody(request, limits));
}

/** The JSON a client POSTed, within the limits, not yet read as a message. */
export async function readBody(request: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const body = await readJsonBody(request, limits.maxBytes);
  refuseTooDeep(body, limits.maxDepth);
  return body;
}

/** What a body holds as a 2025-era message; refused (400) when it is none. */
export function incomingOf(body: unknown): Incoming {
  const incoming = classify(body);
  if (incoming.kind === 'invalid')
    throw new McpRefusal(400, incoming.reason, ProtocolErrorCode.InvalidRequest, incoming.id);
  return incoming;
}

/** The id of a body that has a valid one, for the errors about it. */
export function idOf(body: unknown): RequestId | null {
  const id = (body as { id?: unknown } | null)?.id;
  return isId(id) ? id : null;
}

type Invalid = { kind: 'invalid'; id: RequestId | null; reason: string };

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** What a POSTed body holds. Batches are not part of the 2025-06-18+ protocol and are refused. */
export function classify(body: unknown): Incoming | Invalid {
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

/**
 * Refuses a message nested deeper than the limit before anything walks it (the SDK's schemas,
 * audit digests and every JSON.stringify on the way recurse), with its id when that is readable.
 */
function refuseTooDeep(body: unknown, maxDepth: number): void {
  if (nestingDepth(body, maxDepth) <= maxDepth) return;
  const id = (body as { id?: unknown } | null)?.id;
  throw new McpRefusal(
    400,
    `The request body is nested more than ${maxDepth} levels deep, past the limit (JSON_MAX_DEPTH)`,
    ProtocolErrorCode.InvalidRequest,
    isId(id) ? id : null,
  );
}

/** JSON-RPC's parse error: the body is not JSON. */
const PARSE_ERROR = -32700;

/**
 * The JSON body of an MCP POST, read here rather than by the app's body parser, so that every
 * refusal is a JSON-RPC error: 413 past the limit, 415 for an encoding Portico does not decode
 * (a lying `Content-Encoding` included), 400 for what is not JSON.
 */
async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity')
    throw new McpRefusal(415, `Content-Encoding '${encoding}' is not supported`);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw await refusedTooLarge(request, limit);
  const chunks: Buffer[] = [];
  let size = 0;
  const tooLarge = await readChunks(request, (chunk) => {
    size += chunk.length;
    chunks.push(chunk as Buffer);
    return size > limit;
  });
  if (tooLarge) throw await refusedTooLarge(request, limit);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new McpRefusal(400, 'Parse error: the body is not valid JSON', PARSE_ERROR);
  }
}

/** How much of a refused body is read and dropped, so that its client hears the 413. */
const DRAINED_BYTES_LIMIT = 64 * 1024 * 1024;

/**
 * The 413 of a body past the limit, once the rest of it has been read and dropped: a client still
 * sending when the connection closed under it would see a reset instead of the answer. A body
 * larger still (DRAINED_BYTES_LIMIT) is not waited for; HTTP_REQUEST_TIMEOUT_MS bounds the wait.
 */
async function refusedTooLarge(request: IncomingMessage, limit: number): Promise<McpRefusal> {
  let drained = 0;
  request.resume();
  await readChunks(request, (chunk) => {
    drained += chunk.length;
    return drained > DRAINED_BYTES_LIMIT;
  }).catch(() => undefined);
  return tooLargeRefusal(limit);
}

function tooLargeRefusal(limit: number): McpRefusal {
  return new McpRefusal(
    413,
    `The request body is larger than ${limit} bytes, past the limit (BODY_LIMIT_BYTES)`,
  );
}
