import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { PROTOCOL_VERSION_META_KEY, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  MODERN_PROTOCOL_VERSIONS,
  SESSION_PROTOCOL_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../upstream/eras/protocol-era';
import { Directories } from '../directory/directories.service';
import { McpAuthorizer } from '../../auth/mcp-authorizer';
import { ObservabilitySettings } from '../../config/slices/observability.settings';
import { ServerSettings } from '../../config/slices/server.settings';
import { Metrics } from '../../observability/metrics';
import { requestLogging } from '../../observability/logging';
import { requestContext } from '../../observability/request-context';
import { type Authorized } from '../protocol/authorized';
import { idOf, McpRefusal } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { sendMcpError } from './mcp-exception.filter';
import { StreamableHttpEndpoint } from '../sessions/session.endpoint';
import { readJsonBody } from '../../common/read-body';
import { classifyClaim } from './modern-request';
import { ModernWire } from './modern-wire';

/** `/mcp` and `/servers/:id/mcp`, in any case and with a trailing slash, as Express matched them. */
const STREAMABLE_PATH = /^\/(?:servers\/([^/]+)\/)?mcp\/?$/i;

const METHODS = ['POST', 'GET', 'DELETE'] as const;
type Method = (typeof METHODS)[number];
const ALL_PATH = '/mcp';

function isMethod(method: string): method is Method {
  return (METHODS as readonly string[]).includes(method);
}
const SERVER_PATH = '/servers/:serverId/mcp';

/** What McpHttpHandler serves, as Express would name the routes (`POST /servers/:serverId/mcp`). */
export const STREAMABLE_HTTP_ROUTES = METHODS.flatMap((method) =>
  [ALL_PATH, SERVER_PATH].map((path) => `${method} ${path}`),
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The scope of `/servers/:serverId/...`: 404 for what cannot be a server id. */
export function serverScope(serverId: string): McpScope {
  if (!UUID.test(serverId)) throw new McpRefusal(404, 'No such virtual server');
  return { kind: 'server', serverId: serverId.toLowerCase() };
}

const ALL: McpScope = { kind: 'all' };

function accepts(request: IncomingMessage, type: string): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes(type) || accept.includes('*/*');
}

/** Whether the body is declared `application/json` (parameters such as charset aside). */
function isJson(request: IncomingMessage): boolean {
  const type = request.headers['content-type'] ?? '';
  const end = type.indexOf(';');
  return (end === -1 ? type : type.slice(0, end)).trim().toLowerCase() === 'application/json';
}

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

/** The path of a request target: origin-form (`/mcp?x`), or absolute-form as proxies may send. */
function pathOf(target: string): string {
  if (!target.startsWith('/')) {
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  }
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
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
      response.setHeader('Allow', METHODS.join(', '));
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
        return this.sessions.get(http);
      case 'DELETE':
        return this.sessions.delete(http);
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
    await this.assertTakesEra(scope, route?.kind === 'modern' ? '2026-07-28' : '2025', body);
    if (route?.kind === 'modern') {
      // A notification has nothing to answer on this wire (cancelling is closing the stream).
      if (route.messageKind === 'notification') response.writeHead(202).end();
      else await this.modern.serve(http, route.message);
      return;
    }
    // What is not JSON-RPC at all stays the 2025 wire's to refuse, in its own words.
    if (route?.kind === 'reject' && route.rung !== 'jsonrpc-shape')
      throw new McpRefusal(route.httpStatus, route.message, route.code, idOf(body), route.data);
    return this.sessions.post(http, body);
  }

  /**
   * A server that takes clients of one era refuses the other's requests as a server of that era
   * only would: 400 and -32022 naming the versions it takes, from which a client of both eras
   * learns to speak the other.
   */
  private async assertTakesEra(
    scope: McpScope,
    era: '2025' | '2026-07-28',
    body: unknown,
  ): Promise<void> {
    if (scope.kind !== 'server') return;
    const takes = (await this.directories.get(scope))?.server?.clientEras ?? 'any';
    if (takes === 'any' || takes === era) return;
    const params = (body as { params?: { protocolVersion?: unknown; _meta?: unknown } } | null)
      ?.params;
    const requested =
      era === '2025'
        ? params?.protocolVersion
        : (params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
    const supported = takes === '2025' ? SESSION_PROTOCOL_VERSIONS : MODERN_PROTOCOL_VERSIONS;
    throw new McpRefusal(
      400,
      `Unsupported protocol version: this server takes only clients of the ${takes} era`,
      UNSUPPORTED_PROTOCOL_VERSION,
      idOf(body),
      {
        supported: [...supported],
        ...(typeof requested === 'string' ? { requested } : {}),
      },
    );
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export const CORS_EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate'];

export interface OriginPolicy {
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
}

/**
 * DNS-rebinding defence for the MCP endpoints. A browser page may only call them from an allowed
 * origin (PUBLIC_URL, ALLOWED_ORIGINS, localhost); requests without Origin come from non-browser
 * clients and pass.
 */
export function originAllowed(origin: string | undefined, policy: OriginPolicy): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return policy.allowedOrigins.includes(url.origin) || LOOPBACK.has(url.hostname);
}

/** The Host header must name Portico itself: PUBLIC_URL's host, ALLOWED_HOSTS, or loopback. */
export function hostAllowed(host: string | undefined, policy: OriginPolicy): boolean {
  if (!host) return false;
  const name = host.toLowerCase();
  const hostname = name.startsWith('[')
    ? name.slice(0, name.indexOf(']') + 1)
    : name.replace(/:\d+$/, '');
  return (
    LOOPBACK.has(hostname) ||
    policy.allowedHosts.includes(name) ||
    policy.allowedHosts.includes(hostname)
  );
}

/** Why a request to an MCP endpoint is refused for its Origin or Host (403), or null. */
export function originRefusal(headers: IncomingHttpHeaders, policy: OriginPolicy): string | null {
  if (!originAllowed(headers.origin, policy)) return 'Origin not allowed';
  if (!hostAllowed(headers.host, policy)) return 'Host not allowed';
  return null;
}
