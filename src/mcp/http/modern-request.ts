import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCRequest,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  TRACEPARENT_META_KEY,
} from '@modelcontextprotocol/server';
import { type IncomingHttpHeaders } from 'node:http';
import { type HeaderParam, valueAt } from '../../upstream/modern/mcp-param-headers';
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from '../../upstream/eras/protocol-era';
import { isLoggingLevel } from '../protocol/logging-level';
import { McpRefusal } from '../protocol/mcp-errors';
import { MODERN_VERSIONS } from '../core/server-identity';

/**
 * The methods of the stateless revision Portico serves. Anything else with the modern envelope,
 * the 2025-only methods (initialize, ping, logging/setLevel, resources/subscribe) included, is
 * unknown on this wire: 404 and -32601.
 */
export const MODERN_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
]);

/** The request field that `Mcp-Name` mirrors, per method (SEP-2243). */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** What a modern request says of its client in `_meta` (the SDK's classifier validated it). */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | null;
  logLevel: LoggingLevel | null;
  traceparent: string | null;
}

export function envelopeOf(request: JSONRPCRequest): Envelope {
  const meta = (request.params?._meta ?? {}) as Record<string, unknown>;
  const level = meta[LOG_LEVEL_META_KEY];
  const info = meta[CLIENT_INFO_META_KEY];
  const trace = meta[TRACEPARENT_META_KEY];
  return {
    protocolVersion: String(meta[PROTOCOL_VERSION_META_KEY]),
    clientCapabilities: meta[CLIENT_CAPABILITIES_META_KEY] ?? {},
    clientInfo: info !== null && typeof info === 'object' ? (info as Implementation) : null,
    logLevel: isLoggingLevel(level) ? level : null,
    traceparent: typeof trace === 'string' ? trace : null,
  };
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : value?.[0]?.trim();
}

function mismatch(request: JSONRPCRequest, message: string, header: string): McpRefusal {
  return new McpRefusal(
    400,
    `Bad Request: the request headers and body disagree: ${message}`,
    HEADER_MISMATCH,
    request.id,
    { mismatch: { header, body: message } },
  );
}

/**
 * The checks of a modern request before anything is served, in the SDK's order: a version
 * Portico serves (-32022 with what it does serve), the standard headers (-32020: present, and
 * `Mcp-Name` equal to the body's name or uri), then a method of this wire (404, -32601).
 */
export function checkModernRequest(request: JSONRPCRequest, headers: IncomingHttpHeaders): void {
  const { protocolVersion } = envelopeOf(request);
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
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A header value as sent: plain, or `=?base64?…?=`; undefined when the sentinel is not canonical. */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (!match) return value;
  const payload = match[1] ?? '';
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * A `tools/call`'s `Mcp-Param-*` headers against the tool's `x-mcp-header` declarations: every
 * argument so declared that the body carries (as a primitive) must be mirrored, equal once
 * decoded; numbers compare as numbers. -32020 on the first that is not.
 */
export function checkParamHeaders(
  request: JSONRPCRequest,
  declared: readonly HeaderParam[],
  headers: IncomingHttpHeaders,
): void {
  const args = (request.params as { arguments?: unknown } | undefined)?.arguments;
  for (const { path, header } of declared) {
    const value = valueAt(args, path);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      continue;
    const name = `Mcp-Param-${header}`;
    const sent = headerOf(headers, name.toLowerCase());
    if (sent === undefined)
      throw mismatch(request, `${path.join('.')} is set but ${name} is absent`, name);
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined)
      throw mismatch(request, `${name} carries an invalid Base64 sentinel`, name);
    const equal =
      typeof value === 'number' && DECIMAL.test(decoded)
        ? Number(decoded) === value
        : decoded === String(value);
    if (!equal)
      throw mismatch(
        request,
        `${name} decodes to ${JSON.stringify(decoded)} but ${path.join('.')} is ${JSON.stringify(value)}`,
        name,
      );
  }
}
