import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type ActingFor, type Affinity } from '../../upstream/upstream-connection';
import { UpstreamClient } from '../../upstream/upstream-client';
import { UpstreamRpcError } from '../../upstream/upstream-error';
import { type UpstreamRef } from '../protocol/mcp-request';
import {
  type Follow,
  FollowedConnections,
  type Follower,
} from '../../upstream/followed-connections';

/** Someone following an upstream resource: a listen, or a 2025 session's subscription. */
export interface ResourceFollower extends Follower {
  updated(): void;
}

/**
 * Whose upstream connection carries a follow. A listen acts for its user, on a connection the
 * watch opens per gateway and authorization context and shares between listens. A 2025 session
 * follows on its own upstream session (its `affinity`), since a 2025 upstream's subscriptions,
 * and what it sends for them, belong to the session that made them.
 */
export type FollowVia = { actingFor: ActingFor } | { affinity: Affinity };

type ResourceFollow = Follow<ResourceFollower>;

/**
 * Upstream resources followed on this replica, for 2026-07-28 listens and 2025 sessions'
 * `resources/subscribe` alike: subscribed upstream once per connection and resource however many
 * follow it, and unsubscribed when the last one stops.
 */
@Injectable()
export class ResourceWatch implements OnModuleDestroy {
  private readonly follows: FollowedConnections<ResourceFollower>;

  constructor(private readonly client: UpstreamClient) {
    this.follows = new FollowedConnections(client, 'resource');
  }

  onModuleDestroy(): Promise<void> {
    return this.follows.close();
  }

  /**
   * Follows one upstream resource: the follower's `updated` runs on each `resources/updated`.
   * Resolves with the way to stop following; throws what the upstream refused (no subscriptions
   * offered, or unreachable).
   */
  async follow(
    ref: UpstreamRef,
    via: FollowVia,
    upstreamUri: string,
    follower: ResourceFollower,
  ): Promise<() => void> {
    const [key, follow] = await this.followOn(ref.gatewayId, via);
    const { followers, connection } = follow;
    let listening = followers.get(upstreamUri);
    const first = !listening;
    listening ??= new Set();
    listening.add(follower);
    followers.set(upstreamUri, listening);
    const stop = () => {
      if (!listening.delete(follower) || listening.size > 0) return;
      followers.delete(upstreamUri);
      if (followers.size === 0) this.follows.forget(key, follow);
      void connection
        .then(async (open) => {
          if (follow.owned && followers.size === 0) await open.close();
          else await open.request('resources/unsubscribe', { uri: upstreamUri });
        })
        .catch(() => undefined);
    };
    try {
      const open = await connection;
      if (!open.serverCapabilities.resources?.subscribe)
        throw new UpstreamRpcError(-32601, 'the upstream does not offer resource subscriptions');
      if (first) await open.request('resources/subscribe', { uri: upstreamUri });
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** A `resources/updated` a session's own upstream connection heard. */
  updated(
    gatewayId: string,
    affinity: Affinity,
    params: Record<string, unknown> | undefined,
  ): void {
    this.tell(this.follows.get(sessionKey(gatewayId, affinity)), params, 'updated');
  }

  private async followOn(gatewayId: string, via: FollowVia): Promise<[string, ResourceFollow]> {
    if ('affinity' in via) {
      const key = sessionKey(gatewayId, via.affinity);
      const follow = this.follows.get(key) ?? {
        owned: false,
        followers: new Map(),
        connection: this.client.call(gatewayId, via.affinity, (open) => Promise.resolve(open)),
      };
      return [key, this.follows.watched(key, follow)];
    }
    return this.follows.shared(gatewayId, via.actingFor, (target) => {
      const follow: ResourceFollow = { owned: true, followers: new Map(), connection: null! };
      follow.connection = this.client.open(target, {
        capabilities: {},
        listener: {
          notification: (message) =>
            message.method === 'notifications/resources/updated' &&
            this.tell(follow, message.params, 'updated'),
        },
        listen: true,
        actingFor: via.actingFor,
      });
      return follow;
    });
  }

  private tell(
    follow: ResourceFollow | undefined,
    params: Record<string, unknown> | undefined,
    what: keyof ResourceFollower,
  ): void {
    const uri = params?.uri;
    if (typeof uri === 'string')
      for (const each of [...(follow?.followers.get(uri) ?? [])]) each[what]();
  }
}

function sessionKey(gatewayId: string, affinity: Affinity): string {
  return `${gatewayId}\0session\0${affinity.key}`;
}
