import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type InboundClassificationOutcome,
  type Implementation,
  type JSONRPCRequest,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  TRACEPARENT_META_KEY,
  type CacheScope,
} from '@modelcontextprotocol/server';
import { type IncomingHttpHeaders } from 'node:http';
import { decodeHeaderValue, type HeaderMismatch } from '../../upstream/modern/mcp-param-headers';
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from '../../upstream/eras/protocol-era';
import { LOGGING_LEVELS } from '../protocol/logging-level';
import { McpRefusal } from '../protocol/mcp-errors';
import { BOTH_ERAS } from '../core/dispatcher';
import { TASK_METHODS } from '../tasks/task-calls';
import { MODERN_VERSIONS } from '../core/server-identity';
import { isJsonObject } from '../../common/json-value';

/**
 * The methods of the stateless revision Portico serves. Anything else with the modern envelope,
 * the 2025-only methods (initialize, ping, logging/setLevel, resources/subscribe) included, is
 * unknown on this wire: 404 and -32601.
 */
export const MODERN_METHODS: ReadonlySet<string> = new Set([
  ...BOTH_ERAS,
  'server/discover',
  'subscriptions/listen',
  ...TASK_METHODS,
]);
/** The request field that `Mcp-Name` mirrors, per method (SEP-2243). */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The Tasks extension routes by task id (SEP-2663, Streamable HTTP: Routing Headers).
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** What a modern request says of its client in `_meta` (the SDK's classifier validated it). */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | null;
  logLevel: LoggingLevel | null;
  traceparent: string | null;
}

function envelopeOf(request: JSONRPCRequest): Envelope {
  const meta = (request.params?._meta ?? {}) as Record<string, unknown>;
  const level = meta[LOG_LEVEL_META_KEY];
  const info = meta[CLIENT_INFO_META_KEY];
  const trace = meta[TRACEPARENT_META_KEY];
  return {
    protocolVersion: String(meta[PROTOCOL_VERSION_META_KEY]),
    clientCapabilities: meta[CLIENT_CAPABILITIES_META_KEY] ?? {},
    clientInfo: info !== null && typeof info === 'object' ? (info as Implementation) : null,
    logLevel: LOGGING_LEVELS.includes(level as LoggingLevel) ? (level as LoggingLevel) : null,
    traceparent: typeof trace === 'string' ? trace : null,
  };
}

/** The envelope keys the SDK's schema judges (the rest of `_meta` passes through it unread). */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];
const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
/** Envelopes the SDK found valid, as `envelopeKey` writes them; forgotten all at once when full. */
const validEnvelopes = new Set<string>();
const ENVELOPES_KEPT = 1024;

const isRequestId = (value: unknown) => typeof value === 'string' || Number.isSafeInteger(value);

/**
 * A request's envelope as one string, when the request is one the SDK's JSON-RPC request schema
 * takes (strict: these four keys; a string or integer id; `_meta` with a well-typed progress
 * token and no related task) and no initialize; null for anything else. An absent key and a
 * null one differ here, as they do to the schema.
 */
function envelopeKey(body: unknown): string | null {
  if (!isJsonObject(body) || body.jsonrpc !== '2.0' || !isRequestId(body.id)) return null;
  if (typeof body.method !== 'string' || body.method === 'initialize') return null;
  if (Object.keys(body).some((key) => !REQUEST_KEYS.has(key))) return null;
  const meta = isJsonObject(body.params) ? body.params._meta : undefined;
  if (!isJsonObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined) return null;
  if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) return null;
  return ENVELOPE_KEYS.map((key) => (key in meta ? JSON.stringify(meta[key]) : '-')).join('\n');
}

/**
 * The SDK's classification of a POST that claims the 2026-07-28 wire (its three schema parses of
 * the body), answered without them for what it has judged before: a well-formed request whose
 * envelope it found valid (a client states the same one on every request) and whose version and
 * method headers agree with the body exactly is the modern request the SDK would say it is.
 */
export function classifyClaim(
  body: unknown,
  headers: IncomingHttpHeaders,
): InboundClassificationOutcome {
  const versionHeader = headerOf(headers, 'mcp-protocol-version');
  const methodHeader = headerOf(headers, 'mcp-method');
  const key = envelopeKey(body);
  if (key !== null && validEnvelopes.has(key)) {
    const message = body as JSONRPCRequest;
    const version = message.params?._meta?.[PROTOCOL_VERSION_META_KEY];
    if (
      typeof version === 'string' &&
      MODERN_VERSIONS.includes(version) &&
      (versionHeader === undefined || versionHeader === version) &&
      (methodHeader === undefined || methodHeader === message.method)
    )
      return {
        kind: 'modern',
        messageKind: 'request',
        message,
        classification: { era: 'modern', revision: version },
      };
  }
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: versionHeader,
    mcpMethodHeader: methodHeader,
    mcpNameHeader: headerOf(headers, 'mcp-name'),
    body,
  });
  if (key !== null && route.kind === 'modern' && route.messageKind === 'request') {
    if (validEnvelopes.size >= ENVELOPES_KEPT) validEnvelopes.clear();
    validEnvelopes.add(key);
  }
  return route;
}

/** A header's first value, trimmed (Node has trimmed a single value already). */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : value?.[0]?.trim();
}

/** -32020: the request's headers and its body disagree. */
export function mismatch(request: JSONRPCRequest, message: string, header: string): McpRefusal {
  return new McpRefusal(
    400,
    `Bad Request: the request headers and body disagree: ${message}`,
    HEADER_MISMATCH,
    request.id,
    { mismatch: { header, body: message } },
  );
}

export function mismatchRefusal(request: JSONRPCRequest, found: HeaderMismatch): McpRefusal {
  return mismatch(request, found.message, found.header);
}

/**
 * The checks of a modern request before anything is served, in the SDK's order: a version
 * Portico serves (-32022 with what it does serve), the standard headers (-32020: present, and
 * `Mcp-Name` equal to the body's name or uri), then a method of this wire (404, -32601). Returns
 * the request's envelope.
 */
export function checkModernRequest(
  request: JSONRPCRequest,
  headers: IncomingHttpHeaders,
): Envelope {
  const envelope = envelopeOf(request);
  const { protocolVersion } = envelope;
  if (!MODERN_VERSIONS.includes(protocolVersion))
    throw new McpRefusal(
      400,
      `Unsupported protocol version: ${protocolVersion}`,
      UNSUPPORTED_PROTOCOL_VERSION,
      request.id,
      { supported: [...MODERN_VERSIONS], requested: protocolVersion },
    );
  if (headerOf(headers, 'mcp-protocol-version') === undefined)
    throw mismatch(request, 'the required MCP-Protocol-Version header is absent', '(missing)');
  if (headerOf(headers, 'mcp-method') === undefined)
    throw mismatch(request, 'the required Mcp-Method header is absent', '(missing)');
  const field = NAME_SOURCE[request.method];
  const body = field ? request.params?.[field] : undefined;
  if (typeof body === 'string') {
    const header = headerOf(headers, 'mcp-name');
    if (header === undefined)
      throw mismatch(request, `params.${field} is "${body}" but Mcp-Name is absent`, '(missing)');
    const decoded = decodeHeaderValue(header);
    if (decoded === undefined)
      throw mismatch(request, 'Mcp-Name carries an invalid Base64 sentinel', header);
    if (decoded !== body)
      throw mismatch(
        request,
        `params.${field} is "${body}" but Mcp-Name names "${decoded}"`,
        header,
      );
  }
  if (!MODERN_METHODS.has(request.method))
    throw new McpRefusal(
      404,
      `Method not found: ${request.method}`,
      ProtocolErrorCode.MethodNotFound,
      request.id,
    );
  return envelope;
}

/** How long a modern client may reuse an answer, and with whom (2026-07-28 caching). */
export interface CacheHint {
  ttlMs: number;
  cacheScope: CacheScope;
}

/**
 * The cacheable methods and how long their answers stay true. Every answer is `private`: what a
 * scope lists depends on who asks (tool rules, membership, the token's reach). Lists change only
 * when an operator or a sync changes the catalogue; until modern listens relay those changes, a
 * client learns of them by asking again, so the lists are fresh for seconds, not minutes. What an
 * upstream reads is its own to hint: without its hint nothing is cached (the spec's default).
 */
const TTL_MS: Readonly<Record<string, number>> = {
  'server/discover': 60_000,
  'tools/list': 10_000,
  'prompts/list': 10_000,
  'resources/list': 10_000,
  'resources/templates/list': 10_000,
  'resources/read': 0,
};

/** Whether a method's answer carries a cache hint. */
export function isCacheable(method: string): boolean {
  return method in TTL_MS;
}

export function cacheHint(method: string): CacheHint {
  return { ttlMs: TTL_MS[method] ?? 0, cacheScope: 'private' };
}

/** A read's hint: the upstream's, when it gave one, never longer-lived or more shared than ours. */
export function readHint(upstream: { ttlMs?: unknown }): CacheHint {
  const ttl = upstream.ttlMs;
  return {
    ttlMs: typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0 ? ttl : 0,
    cacheScope: 'private',
  };
}
