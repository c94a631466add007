import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Implementation,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Result,
  SERVER_INFO_META_KEY,
  TRACEPARENT_META_KEY,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { exchangeSubjectOf } from '../../auth/principal-resolver';
import { CallAbort } from '../../common/call-abort';
import { headerOf, paramHeaderMismatch } from '../../upstream/modern/mcp-param-headers';
import { sharedAffinity } from '../../upstream/upstream-client';
import { Dispatcher } from '../core/dispatcher';
import { TASK_METHODS } from '../tasks/task-calls';
import { RequestStateSealer } from '../core/request-state-seal';
import { PORTICO, type ScopeDirectory } from '../directory/scope-directory';
import { Directories } from '../directory/directories.service';
import { ListenEndpoint } from '../listen/listen.endpoint';
import { type Authorized } from '../protocol/authorized';
import { LOGGING_LEVELS, passesLogLevel } from '../protocol/logging-level';
import {
  errorResponse,
  headerMismatch,
  McpRefusal,
  MISSING_CLIENT_CAPABILITY,
  RESOURCE_NOT_FOUND,
  type RpcError,
  unknownTool,
} from '../protocol/mcp-errors';
import {
  BOTH_ERAS,
  type McpRequest,
  type RequestMeta,
  ROUND_METHODS,
} from '../protocol/mcp-request';
import { type McpScope } from '../protocol/mcp-scope';
import { SseResponse } from '../streams/sse-response';
import { StreamQuota } from '../streams/stream-quota';
import { CACHE_TTL_MS, cacheHint } from './cache-hints';
import { rerunBinding, urlRound } from './url-rounds';

/** The reserved `_meta` keys of the 2026-07-28 envelope. */
const ENVELOPE = 'io.modelcontextprotocol/';

/**
 * The methods of the stateless revision Portico serves. Anything else with the modern envelope,
 * the 2025-only methods (initialize, ping, logging/setLevel, resources/subscribe) included, is
 * unknown on this wire: 404 and -32601.
 */
const MODERN_METHODS: ReadonlySet<string> = new Set([
  ...BOTH_ERAS,
  'server/discover',
  'subscriptions/listen',
  ...TASK_METHODS,
]);

/** What a modern request says of its client in `_meta` (the SDK's classifier validated it). */
function envelopeOf(request: JSONRPCRequest): RequestMeta {
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

/**
 * The stateless 2026-07-28 wire on the MCP endpoints: one request, its version and standard
 * headers checked by the edge, is checked here for its method and `Mcp-Param-*` headers and
 * becomes one request of the core with what its own `_meta` says of the client, on the replica's
 * shared upstream connections; its answer is shaped for the era (`resultType`, cache hints, the
 * spec's error codes). Nothing of it is kept: any replica answers any request, and nothing here
 * reads the database.
 */
@Injectable()
export class ModernWire {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly directories: Directories,
    private readonly sealer: RequestStateSealer,
    private readonly listens: ListenEndpoint,
    private readonly quota: StreamQuota,
  ) {}

  /** A request the edge has classified and checked. */
  async serve(http: Authorized, message: JSONRPCRequest): Promise<void> {
    const { request, response, scope, principal } = http;
    if (!MODERN_METHODS.has(message.method))
      throw new McpRefusal(
        404,
        `Method not found: ${message.method}`,
        ProtocolErrorCode.MethodNotFound,
        message.id,
      );
    const meta = envelopeOf(message);
    if (message.method === 'subscriptions/listen') return this.listens.serve(http, message);
    // Read once for the checks before the call and the shaping after it.
    const directory = await this.directories.get(scope);
    const refused = message.method === 'tools/call' && this.refused(directory, message, request);
    const exchange = new ModernExchange(response, () => this.quota.count(principal, response));
    if (refused) return exchange.finish(errorResponse(message.id, refused), 200);
    const answer = await this.dispatcher.serve({
      id: message.id,
      method: message.method,
      ...this.partsOf(principal, scope, message),
      scope,
      principal,
      meta,
      owner: { kind: 'principal', scope, subject: principal.subject },
      affinity: sharedAffinity(meta.clientCapabilities, {
        userId: principal.userId,
        subject: exchangeSubjectOf(principal),
      }),
      sessionId: null,
      signal: exchange.signal,
      sink: {
        // Without a level of its own the request hears no log messages at all.
        notify: (notification: JSONRPCNotification) => {
          if (notification.method === 'notifications/message' && meta.logLevel === null) return;
          if (passesLogLevel(notification, meta.logLevel)) exchange.write(notification);
        },
      },
    });
    const { status, body } = this.shaped(principal, scope, directory, message, meta, answer);
    exchange.finish(body, status);
  }

  /**
   * The params the core gets: the envelope the client stated to Portico is the request's metadata
   * (`meta`), never passed on as its own (a 2025 upstream never sees it; a 2026-07-28 one hears
   * Portico's); the rest of `_meta` (progress token, trace context) goes on as it came. A request
   * that takes input rounds has its round's state and answers as its `resume`. A request whose
   * user completed a URL elicitation out of band runs again, as new (its state is this wire's own,
   * see urlRound).
   */
  private partsOf(
    principal: Principal,
    scope: McpScope,
    message: JSONRPCRequest,
  ): Pick<McpRequest, 'params' | 'resume'> {
    const params = message.params;
    if (params === undefined) return { params, resume: null };
    const meta = params._meta; // not a rest pattern, which V8 copies slowly (see ModernConnection)
    let passed: Record<string, unknown> | undefined;
    for (const key in meta) if (!key.startsWith(ENVELOPE)) (passed ??= {})[key] = meta[key];
    const kept: Record<string, unknown> = { ...params, _meta: passed };
    if (
      !ROUND_METHODS.has(message.method) ||
      (kept.requestState === undefined && kept.inputResponses === undefined)
    )
      return { params: kept, resume: null };
    const { requestState, inputResponses, ...fresh } = kept;
    const rerun =
      requestState !== undefined &&
      this.sealer.unseal(requestState, rerunBinding(principal, scope, message));
    if (rerun && rerun.ok && rerun.content.kind === 'rerun') return { params: fresh, resume: null };
    return { params: fresh, resume: { requestState, inputResponses } };
  }

  /**
   * The core's answer on this wire: every result says it is `complete` (or `input_required`)
   * and cacheable complete ones carry their hint; tools a client of this era must drop are left
   * out of the list; a URL elicitation the call needs is a URL round for a client that can take
   * one and -32021 for one that cannot; a resource not found is -32602 here, and only a missing
   * client capability changes the HTTP status (errors are in-band otherwise, as the SDK answers
   * them).
   */
  private shaped(
    principal: Principal,
    scope: McpScope,
    directory: ScopeDirectory | null,
    message: JSONRPCRequest,
    meta: RequestMeta,
    answer: JSONRPCResponse,
  ): { status: number; body: JSONRPCResponse } {
    const method = message.method;
    if ('error' in answer) {
      const url = urlRound(answer, meta.clientCapabilities, ROUND_METHODS.has(method), () =>
        this.sealer.seal(rerunBinding(principal, scope, message), { kind: 'rerun' }),
      );
      if (url && 'result' in url) return { status: 200, body: url };
      const failed = url ?? answer;
      const { code } = failed.error;
      const error =
        code === RESOURCE_NOT_FOUND
          ? { ...failed.error, code: ProtocolErrorCode.InvalidParams }
          : failed.error;
      return { status: code === MISSING_CLIENT_CAPABILITY ? 400 : 200, body: { ...failed, error } };
    }
    const result: Result = {
      ...answer.result,
      resultType: answer.result.resultType ?? 'complete',
      // Portico answers, whoever answered it: its identity, never an upstream's.
      _meta: { ...answer.result._meta, [SERVER_INFO_META_KEY]: directory?.serverInfo ?? PORTICO },
    };
    if (method === 'tools/list' && directory) result.tools = served(directory, result.tools);
    // A round that asks for input is no answer to keep.
    if (CACHE_TTL_MS.has(method) && result.resultType !== 'input_required')
      Object.assign(result, cacheHint(method, answer.result as { ttlMs?: unknown }));
    return { status: 200, body: { ...answer, result } };
  }

  /**
   * A call's `Mcp-Param-*` headers against its tool's declarations, before anything runs (a
   * mismatch is refused at once); a tool whose annotation is invalid is not served on this wire
   * (its clients must drop it): that refusal is the answer.
   */
  private refused(
    directory: ScopeDirectory | null,
    message: JSONRPCRequest,
    request: IncomingMessage,
  ): RpcError | null {
    const name = (message.params as { name?: unknown } | undefined)?.name;
    if (!directory || typeof name !== 'string') return null;
    // Scanned once per name; a name seen before is a map lookup.
    const declared = directory.tools.headers.get(name) ?? directory.tools.headerParams(name);
    if (!declared.valid) return unknownTool(name);
    if (declared.params.length === 0) return null;
    const args = (message.params as { arguments?: unknown }).arguments;
    const found = paramHeaderMismatch(args, declared.params, (header) =>
      headerOf(request.headers, header),
    );
    if (found) throw headerMismatch(message.id, found);
    return null;
  }
}

/** A listed tool whose x-mcp-header annotation is invalid is one a client of this era drops. */
function served(directory: ScopeDirectory, tools: unknown): unknown {
  if (!Array.isArray(tools)) return tools;
  return tools.filter((tool: { name: string }) => directory.tools.headerParams(tool.name).valid);
}

/**
 * The answer to one 2026-07-28 request: plain JSON, unless something about the request goes out
 * first (progress, logs), when it becomes an event stream that ends with the answer. No event ids
 * and no replay: on this wire a dropped stream loses the request, and closing it is the cancel.
 */
export class ModernExchange {
  private sse: SseResponse | null = null;
  private done = false;
  private readonly abort = new CallAbort();

  /** `streaming` hears when the answer becomes an event stream. */
  constructor(
    private readonly response: ServerResponse,
    private readonly streaming: () => void,
  ) {
    response.on('close', () => {
      if (!this.done) this.abort.abort('the client closed the request');
    });
  }

  /** Aborted when the client goes away before the answer. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  write(message: JSONRPCMessage): void {
    if (this.done || this.abort.signal.aborted) return;
    if (!this.sse) {
      this.sse = new SseResponse(this.response, { keepalive: true });
      this.streaming();
    }
    this.sse.message(message);
  }

  finish(message: JSONRPCMessage, status: number): void {
    if (this.done) return;
    this.done = true;
    if (this.sse) {
      this.sse.message(message);
      this.sse.end();
      return;
    }
    if (this.response.destroyed) return;
    const body = JSON.stringify(message);
    this.response.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    this.response.end(body);
  }
}
