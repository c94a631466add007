import { Injectable } from '@nestjs/common';
import {
  type InitializeResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { McpApps } from '../apps/mcp-apps.service';
import { McpRouter } from '../core/mcp-router';
import { ResourceCalls, uriOf } from '../core/resource-calls';
import { isLoggingLevel } from '../protocol/logging-level';
import { type McpCall } from '../protocol/mcp-call';
import { invalidParams, RpcError } from '../protocol/mcp-errors';
import { serverInfo, SERVER_CAPABILITIES } from '../core/server-identity';
import { type SessionRuntime } from './session-runtime';
import { SessionStore } from './session.store';

/**
 * The 2025 session adapter's side of a request: it turns a session's request into one call of the
 * core (McpRouter), and answers itself what only a session has: initialize, ping, the session's
 * log level, and resource subscriptions made on the session's own upstream sessions.
 */
@Injectable()
export class SessionRequests {
  constructor(
    private readonly router: McpRouter,
    private readonly resources: ResourceCalls,
    private readonly apps: McpApps,
    private readonly store: SessionStore,
  ) {}

  /** The answer to a session's request; it never throws (see McpRouter.answer). */
  answer(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    const call = runtime.callOf(request, signal, principal);
    return this.router.answer(call, request, (own) => this.own(runtime, call, own));
  }

  /** A client notification about the session; cancellations are the transport's. */
  async notify(runtime: SessionRuntime, notification: JSONRPCNotification): Promise<void> {
    if (notification.method === 'notifications/roots/list_changed')
      await runtime.notifyUpstreams(notification);
  }

  private async own(
    runtime: SessionRuntime,
    call: McpCall,
    request: JSONRPCRequest,
  ): Promise<Result | undefined> {
    switch (request.method) {
      case 'ping':
        return {};
      case 'logging/setLevel':
        return this.setLogLevel(runtime, request.params);
      case 'initialize':
        return this.initialize(runtime, call);
      case 'resources/subscribe':
        return this.subscribe(runtime, call, request.params, true);
      case 'resources/unsubscribe':
        return this.subscribe(runtime, call, request.params, false);
      default:
        return undefined;
    }
  }

  private async initialize(runtime: SessionRuntime, call: McpCall): Promise<InitializeResult> {
    const directory = await this.router.directory(call);
    return {
      protocolVersion: runtime.session.protocolVersion,
      capabilities: { ...SERVER_CAPABILITIES, ...this.apps.capabilities(directory.tools) },
      serverInfo: serverInfo(directory),
    };
  }

  /** Stored for every replica; an upstream that does not take it fails nothing for the client. */
  private async setLogLevel(runtime: SessionRuntime, params: unknown): Promise<Result> {
    const level = (params as { level?: unknown } | undefined)?.level;
    if (!isLoggingLevel(level)) throw invalidParams('logging/setLevel needs a valid level');
    await this.store.update(runtime.id, { logLevel: level });
    runtime.session.logLevel = level;
    await runtime.setUpstreamLogLevel(level);
    return {};
  }

  /**
   * Stored for every replica; the upstream is asked on this session's own connection, so its
   * updates reach this client only.
   */
  private async subscribe(
    runtime: SessionRuntime,
    call: McpCall,
    params: unknown,
    subscribed: boolean,
  ): Promise<Result> {
    const method = subscribed ? 'resources/subscribe' : 'resources/unsubscribe';
    const directory = await this.router.directory(call);
    const uri = uriOf(params, method);
    const target = this.resources.target(directory, uri);
    await runtime.upstreams.call(target, async (connection) => {
      if (!connection.serverCapabilities.resources?.subscribe)
        throw new RpcError(
          ProtocolErrorCode.MethodNotFound,
          `The upstream of ${uri} does not offer subscriptions`,
        );
      await connection.request(method, { uri: target.upstreamUri });
    });
    const stored = await this.store.subscribe(runtime.id, uri, subscribed);
    if (stored) runtime.session.subscriptions = stored;
    runtime.subscribedHere(uri, subscribed ? target : null);
    return {};
  }
}
