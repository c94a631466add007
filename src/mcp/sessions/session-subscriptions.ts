import { Injectable } from '@nestjs/common';
import { ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { Dispatcher } from '../core/dispatcher';
import { ResourceCalls, uriOf } from '../core/resource-calls';
import { MAX_RESOURCE_SUBSCRIPTIONS } from '../listen/listen-filter';
import { ReadableResources } from '../listen/readable-resources';
import { ResourceWatch } from '../listen/resource-watch';
import { fromUpstream, invalidParams, RpcError } from '../protocol/mcp-errors';
import { type McpRequest } from '../protocol/mcp-request';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { type SessionRuntime } from './session-runtime';
import { SessionStore } from './session.store';

/** A 2025 session's `resources/subscribe` and `resources/unsubscribe`. */
@Injectable()
export class SessionSubscriptions {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly resources: ResourceCalls,
    private readonly watch: ResourceWatch,
    private readonly store: SessionStore,
    private readonly readable: ReadableResources,
  ) {}

  /**
   * Subscribes or unsubscribes the session: stored for every replica; the resource is followed
   * upstream from this replica (the one resource watch that listens use too), and its updates go
   * to this session's stream while the session's principal may still read it. A session follows
   * at most MAX_RESOURCE_SUBSCRIPTIONS resources, as a listen does: each is a watch upstream, and
   * a template matches URIs without end.
   */
  async change(runtime: SessionRuntime, request: McpRequest, subscribed: boolean): Promise<Result> {
    const method = subscribed ? 'resources/subscribe' : 'resources/unsubscribe';
    const directory = await this.dispatcher.directory(runtime.scope);
    const uri = uriOf(request.params, method);
    const target = await this.resources.target(request, directory, uri);
    if (subscribed && isFull(runtime.session.subscriptions, uri)) throw tooMany();
    let stop: (() => void) | null = null;
    if (subscribed && !runtime.follows(uri))
      stop = await this.watch
        .follow(target, { affinity: runtime.affinity }, target.upstreamUri, {
          updated: this.readable.updates(runtime.scope, request.principal, uri, () =>
            runtime.toClient({
              jsonrpc: '2.0',
              method: 'notifications/resources/updated',
              params: { uri },
            }),
          ),
          lost: () => runtime.followed(uri, null),
        })
        .catch((error: unknown) => {
          if (error instanceof UpstreamRpcError && error.code === -32601)
            throw new RpcError(
              ProtocolErrorCode.MethodNotFound,
              `The upstream of ${uri} does not offer subscriptions`,
            );
          if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
            throw fromUpstream(error, target.gatewaySlug);
          throw error;
        });
    // Checked again where it is stored: the session's other replicas may have added some.
    const stored = await this.store.subscribe(runtime.id, uri, subscribed, isFull);
    if (stored === 'full') {
      stop?.();
      throw tooMany();
    }
    if (stored) runtime.session.subscriptions = stored;
    if (stop || !subscribed) runtime.followed(uri, stop);
    return {};
  }
}

/** Whether a session subscribed to these may not subscribe to `uri` as well. */
function isFull(subscriptions: readonly string[], uri: string): boolean {
  return subscriptions.length >= MAX_RESOURCE_SUBSCRIPTIONS && !subscriptions.includes(uri);
}

function tooMany(): RpcError {
  return invalidParams(
    `A session may subscribe to at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources; unsubscribe from one first`,
  );
}
