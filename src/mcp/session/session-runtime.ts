import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolRequest,
  ErrorCode,
  type Implementation,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type MessageExtraInfo,
  ListToolsRequestSchema,
  type ListToolsResult,
  type LoggingLevel,
  type Result,
  ResultSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type AppConfig } from '../../config/app-config';
import { type Metrics } from '../../health/metrics';
import { serveAppResources } from '../apps/app-resources.handlers';
import { type McpApps } from '../apps/mcp-apps.service';
import { type ToolDirectory } from '../directory/tool-directory';
import { type ToolDirectoryService } from '../directory/tool-directory.service';
import { paginate } from '../directory/paginate';
import { CapturedExchange, type Exchange } from '../http/exchange';
import { type SessionRelay, SessionTransport } from '../http/session-transport';
import {
  callParams,
  errorResponse,
  RpcError,
  unknownTool,
  UpstreamSessionGone,
} from '../mcp-errors';
import { passesLogLevel } from '../logging-level';
import { scopeOf, type McpScope } from '../mcp-scope';
import { type ToolSearchService } from '../search/tool-search.service';
import {
  type CallContext,
  CLIENT_ANSWER_TIMEOUT_MS,
  type DownstreamLink,
  ProxySession,
  type UpstreamTarget,
} from '../upstream/proxy-session';
import { type UpstreamPools } from '../upstream/upstream-pools.service';
import { sameTarget, type UpstreamTargets } from '../upstream/upstream-targets.service';
import { type SessionState, type SessionStore } from './session.store';

export interface RuntimeContext {
  config: AppConfig;
  replicaId: string;
  directories: ToolDirectoryService;
  store: SessionStore;
  toolSearch: ToolSearchService;
  targets: UpstreamTargets;
  pools: UpstreamPools;
  metrics: Metrics;
  apps: McpApps;
  relay(sessionId: string): SessionRelay;
}

const RESTORE_ID = 'portico-restore';

/**
 * One MCP session as served by this replica: the SDK Server that speaks the protocol, its
 * transport, and the session's own upstream sessions. Every replica can build one from the stored
 * session record, so any replica can serve any request.
 */
export class SessionRuntime {
  readonly transport: SessionTransport;
  readonly server: Server;
  readonly scope: McpScope;
  lastUsed = Date.now();
  /** The directory version this session last listed; a newer one means list_changed. */
  listedFingerprint: string | null = null;
  private readonly upstreams = new Map<string, Promise<ProxySession>>();
  private logLevel: LoggingLevel | null;

  constructor(
    readonly session: SessionState,
    serverInfo: Implementation,
    private readonly context: RuntimeContext,
  ) {
    this.scope = scopeOf(session.serverId);
    this.logLevel = session.logLevel;
    this.transport = new SessionTransport(session.id, context.replicaId, context.relay(session.id));
    this.server = new Server(serverInfo, {
      capabilities: { tools: { listChanged: true }, logging: {} },
    });
    this.server.setRequestHandler(ListToolsRequestSchema, (request) =>
      this.listTools(request.params?.cursor),
    );
    this.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      await this.setLogLevel(request.params.level);
      return {};
    });
    this.server.setNotificationHandler(RootsListChangedNotificationSchema, () =>
      this.rootsChanged(),
    );
    serveAppResources(this.server, context.apps, this);
  }

  async start(): Promise<void> {
    this.server.registerCapabilities(await this.context.apps.capabilities(this.scope));
    await this.server.connect(this.transport);
  }

  /** A client request; tools/call is served here, everything else by the SDK server. */
  receiveRequest(request: JSONRPCRequest, exchange: Exchange, extra?: MessageExtraInfo): void {
    if (request.method === 'tools/call') void this.callTool(request, exchange);
    else this.transport.receiveRequest(request, exchange, extra);
  }

  /** Brings the SDK server to the state the session's initialize left it in, on another replica. */
  async restore(): Promise<void> {
    const exchange = new CapturedExchange();
    this.transport.receiveRequest(
      {
        jsonrpc: '2.0',
        id: RESTORE_ID,
        method: 'initialize',
        params: this.session.initializeParams,
      },
      exchange,
    );
    await exchange.answer;
    this.transport.receiveNotification({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /**
   * Closing the transport first answers and aborts the requests in progress, so the upstream
   * sessions, which wait for their calls to finish, end promptly.
   */
  async close(): Promise<void> {
    await this.server.close();
    const upstreams = [...this.upstreams.values()];
    this.upstreams.clear();
    await Promise.all(
      upstreams.map(async (upstream) => (await upstream.catch(() => null))?.close()),
    );
  }

  /** The gateways this session has upstream sessions with. */
  get upstreamGateways(): string[] {
    return [...this.upstreams.keys()];
  }

  /**
   * Retires upstream sessions whose gateway now has another endpoint or is no longer active (null
   * in `targets`), so that the next call connects afresh; the others keep serving.
   */
  async refreshUpstreams(targets: ReadonlyMap<string, UpstreamTarget | null>): Promise<void> {
    for (const [gatewayId, target] of targets) {
      const pending = this.upstreams.get(gatewayId);
      const upstream = await pending?.catch(() => null);
      if (pending && upstream && !sameTarget(upstream.target, target))
        this.forgetUpstream(gatewayId, pending);
    }
  }

  /** The level another replica stored for this session: applied here and to the upstreams. */
  async applyLogLevel(level: LoggingLevel | null): Promise<void> {
    if (level === this.logLevel) return;
    this.logLevel = level;
    if (level) await this.forwardLogLevel(level);
  }

  /**
   * The client opened its GET stream here: from now on it hears of changes to the list as it is
   * now, even if it listed through another replica (or has not listed yet and will see it).
   */
  async streamOpened(): Promise<void> {
    this.listedFingerprint ??=
      (await this.context.directories.get(this.scope))?.fingerprint ?? null;
  }

  async directory(): Promise<ToolDirectory> {
    const directory = await this.context.directories.get(this.scope);
    if (!directory)
      throw new RpcError(
        ErrorCode.InvalidRequest,
        'This virtual server no longer exists or is disabled',
      );
    return directory;
  }

  private async listTools(cursor: string | undefined): Promise<ListToolsResult> {
    const directory = await this.directory();
    const listed = await this.context.toolSearch.listed(directory, this.session.id);
    const page = paginate(listed ?? directory.definitions, cursor, this.context.config.mcpPageSize);
    if (!page) throw new RpcError(ErrorCode.InvalidParams, 'Invalid cursor');
    this.listedFingerprint = directory.fingerprint;
    return { tools: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /** Serves tools/call itself rather than through the SDK server: this is the hot path. */
  private async callTool(request: JSONRPCRequest, exchange: Exchange): Promise<void> {
    const abort = new AbortController();
    this.transport.serve(request.id, exchange, abort);
    const context: CallContext = {
      requestId: request.id,
      signal: abort.signal,
      notify: (notification) => {
        if (passesLogLevel(notification, this.logLevel)) exchange.write(notification);
      },
      ask: (upstreamRequest) =>
        this.server.request(upstreamRequest, ResultSchema, {
          relatedRequestId: request.id,
          signal: abort.signal,
          timeout: CLIENT_ANSWER_TIMEOUT_MS,
        }),
    };
    const started = performance.now();
    const call = { gateway: '' };
    let answer: JSONRPCResponse;
    try {
      const result = await this.forwardCall(callParams(request.params), context, call);
      answer = { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      answer = errorResponse(request.id, error);
    }
    this.transport.answer(answer);
    this.context.metrics.recordCall(call.gateway, answer, (performance.now() - started) / 1000);
  }

  /** Resolves and calls the tool; `call.gateway` says which gateway served it, for the metrics. */
  private async forwardCall(
    params: CallToolRequest['params'],
    context: CallContext,
    call: { gateway: string },
  ): Promise<Result> {
    const directory = await this.directory();
    const searched = await this.context.toolSearch.intercept(
      directory,
      this.session.id,
      params,
      (notification) => context.notify(notification),
    );
    if (searched) return searched;
    const tool =
      directory.byName.get(params.name) ??
      (await this.context.apps.resolveCall(directory, params.name));
    if (!tool) throw unknownTool(params.name);
    return this.withUpstream(tool.gatewayId, (upstream) => {
      call.gateway = upstream.target.slug;
      return upstream.callTool(tool.originalName, params, context);
    });
  }

  /**
   * Runs `work` on this session's upstream session of the gateway. A broken one is dropped so the
   * next use reconnects, and one that a restarted upstream forgot (it ran nothing) gets one retry.
   */
  async withUpstream<T>(
    gatewayId: string,
    work: (upstream: ProxySession) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const pending = this.upstream(gatewayId);
      const upstream = await pending;
      try {
        return await work(upstream);
      } catch (error) {
        const gone = error instanceof UpstreamSessionGone;
        if (upstream.closed || gone) this.forgetUpstream(gatewayId, pending);
        if (attempt === 1 && gone) continue;
        throw error;
      }
    }
  }

  /** Stored for every replica; an upstream that does not take it fails nothing for the client. */
  private async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
    await this.context.store.update(this.session.id, { logLevel: level });
    await this.forwardLogLevel(level);
  }

  private async forwardLogLevel(level: LoggingLevel): Promise<void> {
    await Promise.allSettled(
      [...this.upstreams.values()].map(async (upstream) =>
        (await upstream.catch(() => null))?.setLogLevel(level),
      ),
    );
  }

  private async rootsChanged(): Promise<void> {
    await Promise.all(
      [...this.upstreams.values()].map(async (upstream) =>
        (await upstream.catch(() => null))?.rootsChanged(),
      ),
    );
  }

  private upstream(gatewayId: string): Promise<ProxySession> {
    const existing = this.upstreams.get(gatewayId);
    if (existing) return existing;
    const connecting = this.connectUpstream(gatewayId);
    this.upstreams.set(gatewayId, connecting);
    connecting.catch(
      () => this.upstreams.get(gatewayId) === connecting && this.upstreams.delete(gatewayId),
    );
    return connecting;
  }

  /** Drops a broken upstream session, unless another call has already replaced it. */
  private forgetUpstream(gatewayId: string, pending: Promise<ProxySession>): void {
    if (this.upstreams.get(gatewayId) === pending) this.upstreams.delete(gatewayId);
    void pending.then((session) => session.close()).catch(() => undefined);
  }

  private async connectUpstream(gatewayId: string): Promise<ProxySession> {
    const target = await this.context.targets.get(gatewayId);
    const timeout = this.context.config.upstreamTimeoutMs;
    const link: DownstreamLink = {
      capabilities: this.session.initializeParams.capabilities,
      request: (request) =>
        this.server.request(request, ResultSchema, { timeout: CLIENT_ANSWER_TIMEOUT_MS }),
      notify: async (notification) => {
        if (passesLogLevel(notification, this.logLevel))
          await this.server.notification(notification);
      },
    };
    const upstream = await ProxySession.connect(target, link, timeout, (url) =>
      this.context.pools.for(url),
    );
    if (this.logLevel) await upstream.setLogLevel(this.logLevel).catch(() => undefined);
    return upstream;
  }
}
