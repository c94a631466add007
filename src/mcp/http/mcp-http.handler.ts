import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  type InboundClassificationOutcome,
  type JSONRPCRequest,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/server';
import {
  SESSION_PROTOCOL_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../upstream/eras/protocol-era';
import { headerOf, standardHeaderMismatch } from '../../upstream/modern/mcp-param-headers';
import { accepts, isJson, originRefusal, pathOf } from '../../common/http-request';
import { isJsonObject, isRequestId } from '../../common/json-value';
import { MODERN_VERSIONS } from '../protocol/mcp-request';
import { Directories } from '../directory/directories.service';
import { McpAuthorizer } from '../../auth/mcp-authorizer';
import { ObservabilitySettings } from '../../config/slices/observability.settings';
import { ServerSettings } from '../../config/slices/server.settings';
import { Metrics } from '../../observability/metrics';
import { requestLogging } from '../../observability/logging';
import { requestContext } from '../../observability/request-context';
import { type Authorized } from '../protocol/authorized';
import { headerMismatch, idOf, McpRefusal } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { sendMcpError } from './mcp-exception.filter';
import {
  ALL_PATH,
  CORS_EXPOSED_HEADERS,
  SERVER_PATH,
  STREAMABLE_METHODS,
  STREAMABLE_PATH,
  type StreamableMethod,
} from './mcp-paths';
import { StreamableHttpEndpoint } from '../sessions/session.endpoint';
import { SessionStreamEndpoint } from '../sessions/session-stream.endpoint';
import { readJsonBody } from '../../common/read-body';
import { ModernWire } from './modern-wire';
import { Memo } from '../../common/memo';

function isMethod(method: string): method is StreamableMethod {
  return (STREAMABLE_METHODS as readonly string[]).includes(method);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The scope of `/servers/:serverId/...`: 404 for what cannot be a server id. */
export function serverScope(serverId: string): McpScope {
  if (!UUID.test(serverId)) throw new McpRefusal(404, 'No such virtual server');
  return { kind: 'server', serverId: serverId.toLowerCase() };
}

const ALL: McpScope = { kind: 'all' };

/**
 * Whether a POST claims the 2026-07-28 wire: a version header of no 2025 revision, or the
 * envelope's protocol version in `params._meta` (the SDK's own first test).
 */
function claimsModern(body: unknown, headers: IncomingHttpHeaders): boolean {
  // Node joins a repeated header into one value.
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SESSION_PROTOCOL_VERSIONS.includes(String(version))) return true;
  const meta = (body as { params?: { _meta?: unknown } } | null)?.params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
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
const validEnvelopes = new Memo<string, true>(1024);

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
  if (key !== null && route.kind === 'modern' && route.messageKind === 'request')
    validEnvelopes.remember(key, true);
  return route;
}

/**
 * The checks of a modern request before anything is served, in the SDK's order: a version
 * Portico serves (-32022 with what it does serve), the standard headers (-32020: present, and
 * `Mcp-Name` equal to the body's name, uri or task id); the wire then checks that it serves the
 * method.
 */
function checkModernRequest(request: JSONRPCRequest, headers: IncomingHttpHeaders): void {
  const protocolVersion = String(request.params?._meta?.[PROTOCOL_VERSION_META_KEY]);
  if (!MODERN_VERSIONS.includes(protocolVersion))
    throw new McpRefusal(
      400,
      `Unsupported protocol version: ${protocolVersion}`,
      UNSUPPORTED_PROTOCOL_VERSION,
      request.id,
      { supported: [...MODERN_VERSIONS], requested: protocolVersion },
    );
  const found = standardHeaderMismatch(request.method, request.params, headers);
  if (found) throw headerMismatch(request.id, found);
}

/**
 * The Streamable HTTP endpoints (POST, GET and DELETE on `/mcp` and `/servers/:id/mcp`), served
 * straight from Node's HTTP server ahead of Express: every tools/call comes this way, and Express's
 * and Nest's routing, middleware and guard chain cost about a tenth of Portico's CPU per call. What
 * that chain gives these endpoints is done here with the same functions: request id and log line,
 * HTTP metrics, the Origin and Host check, CORS headers, McpAuthorizer, and MCP's error bodies. Every
 * other request (CORS preflights, the older HTTP+SSE transport) goes on to Express.
 */
@Injectable()
export class McpHttpHandler {
  private readonly logger = new Logger(McpHttpHandler.name);
  private readonly logRequest: ReturnType<typeof requestLogging>;

  constructor(
    private readonly config: ServerSettings,
    observability: ObservabilitySettings,
    private readonly authorizer: McpAuthorizer,
    private readonly sessions: StreamableHttpEndpoint,
    private readonly sessionStreams: SessionStreamEndpoint,
    private readonly modern: ModernWire,
    private readonly metrics: Metrics,
    private readonly directories: Directories,
  ) {
    this.logRequest = requestLogging(observability);
  }

  /** Serves the request when it is for a Streamable HTTP endpoint (true); false leaves it alone. */
  handle(request: IncomingMessage, response: ServerResponse): boolean {
    // CORS preflights stay with Express, whose CORS middleware answers them.
    if (request.method === 'OPTIONS') return false;
    const match = STREAMABLE_PATH.exec(pathOf(request.url ?? ''));
    if (!match) return false;
    const method = request.method ?? '';
    const serverId = match[1];
    const route = serverId === undefined ? ALL_PATH : SERVER_PATH;
    requestContext(request, response, () => {
      this.logRequest(request, response, () => undefined);
      this.metrics.timeRequest(request, response, () => route);
      this.serve(request, response, method, serverId).catch((error: unknown) =>
        sendMcpError(response, error, this.logger),
      );
    });
    return true;
  }

  private async serve(
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    serverId: string | undefined,
  ): Promise<void> {
    // A page of a foreign origin (DNS rebinding) must not learn even from a 401 that it got here.
    const refusal = originRefusal(request.headers, this.config);
    if (refusal !== null) throw new McpRefusal(403, refusal, ProtocolErrorCode.InvalidRequest);
    if (!isMethod(method)) {
      response.setHeader('Allow', STREAMABLE_METHODS.join(', '));
      throw new McpRefusal(405, `${method} is not a method of the MCP endpoint`);
    }
    const { origin } = request.headers;
    if (origin !== undefined) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Vary', 'Origin');
      response.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(','));
    }
    const target =
      serverId === undefined ? ALL : { kind: 'server' as const, serverId: serverId.toLowerCase() };
    const principal = await this.authorizer.authorize(request, target, response);
    const scope = serverId === undefined ? ALL : serverScope(serverId);
    const http: Authorized = { request, response, scope, principal };
    switch (method) {
      case 'POST':
        return this.post(http);
      case 'GET':
        if (!accepts(request, 'text/event-stream'))
          throw new McpRefusal(406, 'Accept must include text/event-stream');
        return this.sessionStreams.get(http);
      case 'DELETE':
        return this.sessionStreams.delete(http);
    }
  }

  /**
   * A POST: its body read within the limits, then classified once, by the body first, as the SDK
   * does: a request with the 2026-07-28 `_meta` envelope goes to the stateless wire, a malformed
   * envelope is refused (never read as 2025), and everything else is the 2025 wire.
   */
  private async post(http: Authorized): Promise<void> {
    const { request, response, scope } = http;
    if (!isJson(request)) throw new McpRefusal(415, 'Content-Type must be application/json');
    if (!accepts(request, 'application/json') || !accepts(request, 'text/event-stream'))
      throw new McpRefusal(406, 'Accept must include application/json and text/event-stream');
    const body = await readJsonBody(request, {
      maxBytes: this.config.bodyLimitBytes,
      maxDepth: this.config.jsonMaxDepth,
    });
    // What claims nothing of 2026-07-28 is the 2025 wire: only what does is classified.
    const route = claimsModern(body, request.headers) ? classifyClaim(body, request.headers) : null;
    await this.directories.assertTakes(
      scope,
      route?.kind === 'modern' ? '2026-07-28' : '2025',
      body,
    );
    if (route?.kind === 'modern') {
      // A notification has nothing to answer on this wire (cancelling is closing the stream).
      if (route.messageKind === 'notification') {
        response.writeHead(202).end();
        return;
      }
      checkModernRequest(route.message, request.headers);
      return this.modern.serve(http, route.message);
    }
    // What is not JSON-RPC at all stays the 2025 wire's to refuse, in its own words.
    if (route?.kind === 'reject' && route.rung !== 'jsonrpc-shape')
      throw new McpRefusal(route.httpStatus, route.message, route.code, idOf(body), route.data);
    return this.sessions.post(http, body);
  }
}
