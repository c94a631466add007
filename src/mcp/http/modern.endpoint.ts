import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { Directories } from '../directory/directories.service';
import { McpRouter } from '../core/mcp-router';
import { passesLogLevel } from '../protocol/logging-level';
import { type McpCall } from '../protocol/mcp-call';
import { RESOURCE_NOT_FOUND, RpcError } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { StreamQuota } from '../streams/stream-quota';
import { cacheHint, isCacheable, readHint } from './cache-hints';
import { ModernExchange } from './modern-exchange';
import { checkModernRequest, checkParamHeaders, envelopeOf } from './modern-request';
import { sharedAffinity, UpstreamClient } from '../../upstream/upstream-client';
import { upstreamCalls } from '../core/upstream-calls';
import { ResourceWatch } from '../listen/resource-watch';
import { ParkedCalls } from '../core/parked-calls';
import { isInputRequired } from '../core/input-rounds';
import { ListenHub, type OpenListen, SUBSCRIPTION_ID } from '../listen/listen-hub';
import { honouredFilter } from '../listen/listen-filter';
import { ResourceCalls } from '../core/resource-calls';
import { SseResponse } from '../streams/sse-response';
import { endAtExpiry } from '../streams/stream-expiry';

/** What a listen's stream may hold unread before the client counts as not reading it. */
const LISTEN_BUFFER_BYTES = 64 * 1024;

const LISTEN_REFUSALS = {
  'principal-limit': 'Too many listens open for this principal on this replica; close one first',
  'replica-limit': 'This replica holds as many listens as it may; try again later',
  'scope-gone': 'This virtual server no longer exists or is disabled',
} as const;

/** The one error a handler answers with an HTTP status of its own (2026-07-28). */
const MISSING_CLIENT_CAPABILITY = -32021;

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
    private readonly router: McpRouter,
    private readonly directories: Directories,
    private readonly client: UpstreamClient,
    private readonly watch: ResourceWatch,
    private readonly quota: StreamQuota,
    private readonly hub: ListenHub,
    private readonly parked: ParkedCalls,
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
    if (message.method === 'tools/call') await this.checkParamHeaders(scope, message, request);
    const envelope = envelopeOf(message);
    const exchange = new ModernExchange(response, () => this.quota.count(principal, response));
    const waiter = {
      requestId: message.id,
      // Without a level of its own the request hears no log messages at all.
      notify: (notification: JSONRPCNotification) => {
        if (notification.method === 'notifications/message' && envelope.logLevel === null) return;
        if (passesLogLevel(notification, envelope.logLevel)) exchange.write(notification);
      },
      settle: (answer: JSONRPCResponse) => {
        const { status, body } = shaped(message.method, answer);
        exchange.finish(body, status);
      },
    };
    const parked = this.parked.parkedIn(principal, scope, message);
    if (parked?.kind === 'parked')
      return this.parked.retry(parked, message, waiter, exchange.signal);
    // The user completed a URL elicitation out of band: the call runs again, as new.
    if (parked?.kind === 'rerun') {
      const { requestState: _state, inputResponses: _answers, ...params } = message.params!;
      message = { ...message, params };
    }
    // Only a tool call relays what a 2025 upstream asks of the client mid-call (as rounds).
    const parking =
      message.method === 'tools/call'
        ? this.parked.begin(principal, scope, message, envelope.clientCapabilities, waiter)
        : null;
    exchange.signal.addEventListener(
      'abort',
      () => parking?.cancel('the client closed the request'),
      {
        once: true,
      },
    );
    const call: McpCall = {
      id: message.id,
      scope,
      principal,
      era: 'modern',
      ...envelope,
      owner: { kind: 'principal', scope, subject: principal.subject },
      sessionId: null,
      signal: parking?.signal ?? exchange.signal,
      upstreams: upstreamCalls(
        this.client,
        sharedAffinity(envelope.clientCapabilities, { userId: principal.userId }),
      ),
      notify: (notification) =>
        parking ? parking.notify(notification) : waiter.notify(notification),
      ask: (asked) =>
        parking
          ? parking.ask(asked)
          : Promise.reject(
              new RpcError(
                ProtocolErrorCode.MethodNotFound,
                `Portico relays ${asked.method} to a 2026-07-28 client only during a tool call`,
              ),
            ),
      sawList: () => undefined,
    };
    const answer = await this.router.answer(call, message);
    if (parking) parking.finish(answer);
    else waiter.settle(answer);
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

  /** A call's `Mcp-Param-*` headers against its tool's declarations, before anything runs. */
  private async checkParamHeaders(
    scope: McpScope,
    message: JSONRPCRequest,
    request: IncomingMessage,
  ): Promise<void> {
    const name = (message.params as { name?: unknown } | undefined)?.name;
    const directory = typeof name === 'string' ? await this.directories.get(scope) : null;
    if (!directory || typeof name !== 'string') return;
    const declared = directory.tools.headerParams(name);
    if (declared.valid) checkParamHeaders(message, declared.params, request.headers);
  }
}

/**
 * The core's answer on this wire: every result says it is `complete` (or `input_required`, an
 * upstream's round relayed) and cacheable complete ones carry their hint; a resource not found is -32602 here, and only a missing client capability changes
 * the HTTP status (errors are in-band otherwise, as the SDK answers them).
 */
function shaped(
  method: string,
  answer: JSONRPCResponse,
): { status: number; body: JSONRPCResponse } {
  if ('error' in answer) {
    const { code } = answer.error;
    const error =
      code === RESOURCE_NOT_FOUND
        ? { ...answer.error, code: ProtocolErrorCode.InvalidParams }
        : answer.error;
    return { status: code === MISSING_CLIENT_CAPABILITY ? 400 : 200, body: { ...answer, error } };
  }
  const result: Result = { ...answer.result, resultType: answer.result.resultType ?? 'complete' };
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
