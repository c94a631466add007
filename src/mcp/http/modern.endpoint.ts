import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  type ClientCapabilities,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { declaresCapability } from '../../upstream/client-capabilities';
import { sharedAffinity } from '../../upstream/upstream-client';
import { isInputRequired } from '../core/continuation';
import { Dispatcher } from '../core/dispatcher';
import { type RequestStateBinding, RequestStateSealer } from '../core/request-state-seal';
import { ResourceCalls } from '../core/resource-calls';
import { Directories } from '../directory/directories.service';
import { honouredFilter } from '../listen/listen-filter';
import { ListenHub, type OpenListen, SUBSCRIPTION_ID } from '../listen/listen-hub';
import { ResourceWatch } from '../listen/resource-watch';
import { passesLogLevel } from '../protocol/logging-level';
import {
  errorResponse,
  MISSING_CLIENT_CAPABILITY,
  RESOURCE_NOT_FOUND,
  type RpcError,
  unknownTool,
} from '../protocol/mcp-errors';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { SseResponse } from '../streams/sse-response';
import { endAtExpiry } from '../streams/stream-expiry';
import { StreamQuota } from '../streams/stream-quota';
import { cacheHint, isCacheable, readHint } from './cache-hints';
import { ModernExchange } from './modern-exchange';
import { checkModernRequest, checkParamHeaders, type Envelope, envelopeOf } from './modern-request';

/** What a listen's stream may hold unread before the client counts as not reading it. */
const LISTEN_BUFFER_BYTES = 64 * 1024;

const LISTEN_REFUSALS = {
  'principal-limit': 'Too many listens open for this principal on this replica; close one first',
  'replica-limit': 'This replica holds as many listens as it may; try again later',
  'scope-gone': 'This virtual server no longer exists or is disabled',
} as const;

/**
 * The stateless 2026-07-28 wire on the MCP endpoints: one request, checked (version, standard and
 * `Mcp-Param-*` headers, method), becomes one call of the core with what its own `_meta` says of
 * the client, on the replica's shared upstream connections; its answer is shaped for the era
 * (`resultType`, cache hints, the spec's error codes). Nothing of it is kept: any replica answers
 * any request, and nothing here reads the database.
 */
@Injectable()
export class ModernEndpoint {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly directories: Directories,
    private readonly sealer: RequestStateSealer,
    private readonly watch: ResourceWatch,
    private readonly quota: StreamQuota,
    private readonly hub: ListenHub,
    private readonly resources: ResourceCalls,
  ) {}

  async serve(
    request: IncomingMessage,
    response: ServerResponse,
    scope: McpScope,
    principal: Principal,
    message: JSONRPCRequest,
  ): Promise<void> {
    checkModernRequest(message, request.headers);
    if (message.method === 'subscriptions/listen')
      return this.listen(response, scope, principal, message);
    const refused =
      message.method === 'tools/call' && (await this.refused(scope, message, request));
    const meta = envelopeOf(message);
    const exchange = new ModernExchange(response, () => this.quota.count(principal, response));
    if (refused) return exchange.finish(errorResponse(message.id, refused), 200);
    const answer = await this.dispatcher.serve({
      id: message.id,
      method: message.method,
      params: this.rerun(principal, scope, message),
      scope,
      principal,
      meta,
      owner: { kind: 'principal', scope, subject: principal.subject },
      affinity: sharedAffinity(meta.clientCapabilities, { userId: principal.userId }),
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
    const { status, body } = await this.shaped(principal, scope, message, meta, answer);
    exchange.finish(body, status);
  }

  /**
   * The params of a call whose user completed a URL elicitation out of band: it runs again, as
   * new (its state is this wire's own, see urlRound); any other request's as they came.
   */
  private rerun(
    principal: Principal,
    scope: McpScope,
    message: JSONRPCRequest,
  ): Record<string, unknown> | undefined {
    const params = message.params;
    if (params?.requestState === undefined || message.method !== 'tools/call') return params;
    const opened = this.sealer.unseal(params.requestState, rerunBinding(principal, scope, message));
    if (!opened.ok || opened.content.kind !== 'rerun') return params;
    const { requestState: _state, inputResponses: _answers, ...rest } = params;
    return rest;
  }

  /**
   * The core's answer on this wire: every result says it is `complete` (or `input_required`)
   * and cacheable complete ones carry their hint; tools a client of this era must drop are left
   * out of the list; a URL elicitation the call needs is a URL round for a client that can take
   * one; a resource not found is -32602 here, and only a missing client capability changes the
   * HTTP status (errors are in-band otherwise, as the SDK answers them).
   */
  private async shaped(
    principal: Principal,
    scope: McpScope,
    message: JSONRPCRequest,
    meta: Envelope,
    answer: JSONRPCResponse,
  ): Promise<{ status: number; body: JSONRPCResponse }> {
    const method = message.method;
    if ('error' in answer) {
      const round = urlRound(answer, meta.clientCapabilities, () =>
        this.sealer.seal(rerunBinding(principal, scope, message), { kind: 'rerun' }),
      );
      if (round) return { status: 200, body: round };
      const { code } = answer.error;
      const error =
        code === RESOURCE_NOT_FOUND
          ? { ...answer.error, code: ProtocolErrorCode.InvalidParams }
          : answer.error;
      return { status: code === MISSING_CLIENT_CAPABILITY ? 400 : 200, body: { ...answer, error } };
    }
    const result: Result = { ...answer.result, resultType: answer.result.resultType ?? 'complete' };
    if (method === 'tools/list') result.tools = await this.served(scope, result.tools);
    // A round that asks for input is no answer to keep.
    if (isCacheable(method) && !isInputRequired(result))
      Object.assign(
        result,
        method === 'resources/read'
          ? readHint(answer.result as { ttlMs?: unknown })
          : cacheHint(method),
      );
    return { status: 200, body: { ...answer, result } };
  }

  /** A listed tool whose x-mcp-header annotation is invalid is one a client of this era drops. */
  private async served(scope: McpScope, tools: unknown): Promise<unknown> {
    const directory = await this.directories.get(scope);
    if (!directory || !Array.isArray(tools)) return tools;
    return tools.filter((tool: { name: string }) => directory.tools.headerParams(tool.name).valid);
  }

  /**
   * `subscriptions/listen`: the response becomes the listen's stream, counted among the
   * principal's streams; the hub writes the acknowledgement, then the list changes it asked for.
   * A graceful end (the scope gone, the replica stopping) answers the listen with its result; a
   * credential changed or expired, or a client that stopped reading, just drops the stream, so a
   * client still entitled listens again.
   */
  private async listen(
    response: ServerResponse,
    scope: McpScope,
    principal: Principal,
    message: JSONRPCRequest,
  ): Promise<void> {
    this.quota.admit(principal, response);
    const sse = new SseResponse(response, { keepalive: true });
    const filter = honouredFilter(
      (message.params as { notifications?: unknown } | undefined)?.notifications,
    );
    // Each resource the listen follows is followed upstream first; what cannot be is left out
    // of the acknowledgement. Updates that come before the hub holds the listen are not lost.
    let listen: OpenListen | null = null;
    const early = new Set<string>();
    const following = await this.follow(scope, principal, filter.resourceSubscriptions ?? [], {
      updated: (uri) => (listen ? listen.resourceUpdated(uri) : early.add(uri)),
      lost: () => listen?.drop('upstream-lost'),
    });
    const unfollow = () => following.forEach(({ stop }) => stop());
    const opened = await this.hub.open({
      requestId: message.id,
      scope,
      owner: { subject: principal.subject, tokenId: principal.tokenId },
      filter: {
        ...filter,
        resourceSubscriptions: following.map(({ uri }) => uri),
      },
      sink: {
        write: (notification) => {
          sse.message(notification);
          return response.writableLength <= LISTEN_BUFFER_BYTES;
        },
        end: (reason) => {
          unfollow();
          if (reason !== 'scope-gone' && reason !== 'shutdown') {
            response.destroy();
            return;
          }
          sse.message({
            jsonrpc: '2.0',
            id: message.id,
            result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: message.id } },
          });
          sse.end();
        },
      },
    });
    if (!opened.ok) {
      unfollow();
      sse.message({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ProtocolErrorCode.InvalidRequest, message: LISTEN_REFUSALS[opened.refusal] },
      });
      sse.end();
      return;
    }
    listen = opened.listen;
    for (const uri of early) listen.resourceUpdated(uri);
    sse.onClose(() => {
      unfollow();
      opened.listen.close();
    });
    endAtExpiry(principal, sse, () => opened.listen.drop('credential-expired'));
  }

  /**
   * Follows each URI upstream (through the scope's directory, as a read resolves it); the URIs
   * followed, with the way to stop. One that names no resource of the scope, or whose upstream
   * offers no subscriptions or cannot be reached within the upstream timeout, is left out.
   */
  private async follow(
    scope: McpScope,
    principal: Principal,
    uris: readonly string[],
    tell: { updated(uri: string): void; lost(): void },
  ): Promise<{ uri: string; stop: () => void }[]> {
    if (uris.length === 0) return [];
    const directory = await this.directories.get(scope);
    if (!directory) return [];
    const followed = await Promise.all(
      uris.map(async (uri) => {
        try {
          const target = this.resources.target(directory, uri);
          const stop = await this.watch.follow(target, principal, target.upstreamUri, {
            updated: () => tell.updated(uri),
            lost: () => tell.lost(),
          });
          return { uri, stop };
        } catch {
          return null;
        }
      }),
    );
    return followed.filter((each) => each !== null);
  }

  /**
   * A call's `Mcp-Param-*` headers against its tool's declarations, before anything runs (a
   * mismatch is refused at once); a tool whose annotation is invalid is not served on this wire
   * (its clients must drop it): that refusal is the answer.
   */
  private async refused(
    scope: McpScope,
    message: JSONRPCRequest,
    request: IncomingMessage,
  ): Promise<RpcError | null> {
    const name = (message.params as { name?: unknown } | undefined)?.name;
    const directory = typeof name === 'string' ? await this.directories.get(scope) : null;
    if (!directory || typeof name !== 'string') return null;
    const declared = directory.tools.headerParams(name);
    if (!declared.valid) return unknownTool(name);
    checkParamHeaders(message, declared.params, request.headers);
    return null;
  }
}

/** MCP's URL elicitation error (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;
/** URL elicitations one round carries at most. */
const MAX_URL_ELICITATIONS = 16;

/** What a rerun's state is bound to: the client's own request, as it names the tool. */
function rerunBinding(
  principal: Principal,
  scope: McpScope,
  message: JSONRPCRequest,
): RequestStateBinding {
  const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
  return {
    subject: principal.subject,
    scope: scopeKey(scope),
    gatewayId: '',
    method: 'tools/call',
    target: typeof params.name === 'string' ? params.name : '',
    arguments: params.arguments,
  };
}

/**
 * A URL elicitation the call needs (-32042, an upstream's or Portico's own for an OAuth upstream
 * the user has not connected) as a URL-mode input round for a client that declared URL
 * elicitation; its state runs the call again once the user is done. Null: the error stands.
 */
function urlRound(
  response: JSONRPCResponse,
  declared: ClientCapabilities,
  rerunState: () => string,
): JSONRPCResponse | null {
  if (!('error' in response) || response.error.code !== URL_ELICITATION_REQUIRED) return null;
  if (!declaresCapability(declared, { elicitation: { url: {} } })) return null;
  const elicitations = (response.error.data as { elicitations?: unknown } | undefined)
    ?.elicitations;
  if (!Array.isArray(elicitations) || elicitations.length === 0) return null;
  const inputRequests: Record<string, unknown> = {};
  for (const [index, elicitation] of elicitations.slice(0, MAX_URL_ELICITATIONS).entries()) {
    const { url, message } = (elicitation ?? {}) as { url?: unknown; message?: unknown };
    if (typeof url !== 'string') return null;
    inputRequests[`url_${index + 1}`] = {
      method: 'elicitation/create',
      params: { mode: 'url', url, message: typeof message === 'string' ? message : url },
    };
  }
  return {
    jsonrpc: '2.0',
    id: response.id,
    result: { resultType: 'input_required', inputRequests, requestState: rerunState() },
  } as JSONRPCResponse;
}
