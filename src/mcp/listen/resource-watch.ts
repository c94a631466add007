import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type Principal } from '../../auth/principal';
import { UpstreamClient } from '../../upstream/upstream-client';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { UpstreamConnector } from '../../upstream/upstream-connector.service';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { authorizationContext } from '../../upstream/upstream-target';
import { type UpstreamRef } from '../protocol/mcp-request';

/** A listen following an upstream resource. */
export interface ResourceFollower {
  updated(): void;
  /** The upstream connection is gone: no more updates will come. */
  lost(): void;
}

/**
 * Upstream resources followed for the listens of this replica: one connection per gateway and
 * authorization context, subscribed once per resource however many listens follow it.
 */
@Injectable()
export class ResourceWatch implements OnModuleDestroy {
  /** Connections that follow resources, by gateway and authorization context. */
  private readonly follows = new Map<
    string,
    { connection: Promise<UpstreamConnection>; followers: Map<string, Set<ResourceFollower>> }
  >();

  constructor(
    private readonly connector: UpstreamConnector,
    private readonly client: UpstreamClient,
  ) {}

  async onModuleDestroy(): Promise<void> {
    const follows = [...this.follows.values()];
    this.follows.clear();
    await Promise.all(
      follows.map(async ({ connection }) =>
        (await connection.catch(() => null))?.close().catch(() => undefined),
      ),
    );
  }

  /**
   * Follows one upstream resource for a listen: its `updated` runs on each `resources/updated`.
   * One connection per gateway and authorization context carries every resource followed through
   * it (a 2025 upstream's `resources/subscribe`, a 2026-07-28 upstream's listen), subscribed once
   * however many listens follow it. Resolves with the way to stop following; throws what the
   * upstream refused (no subscriptions offered, or unreachable).
   */
  async follow(
    ref: UpstreamRef,
    principal: Principal,
    upstreamUri: string,
    follower: ResourceFollower,
  ): Promise<() => void> {
    const target = await this.client.target(ref.gatewayId);
    if (!target)
      throw new UpstreamFailure('unreachable', 'the gateway of this resource is no longer active');
    const key = `${ref.gatewayId}\0${authorizationContext(target, { userId: principal.userId })}`;
    let follow = this.follows.get(key);
    if (!follow) {
      const followers = new Map<string, Set<ResourceFollower>>();
      follow = {
        followers,
        connection: this.connector.open(target, {
          capabilities: {},
          listener: {
            notification: (message) => {
              if (message.method !== 'notifications/resources/updated') return;
              const uri = (message.params as { uri?: unknown } | undefined)?.uri;
              if (typeof uri === 'string')
                for (const each of followers.get(uri) ?? []) each.updated();
            },
          },
          listen: true,
          actingFor: { userId: principal.userId },
        }),
      };
      this.follows.set(key, follow);
      // A lost connection is forgotten, and its listens told: they listen again.
      const lost = follow;
      void lost.connection
        .then((open) => open.lost)
        .then(
          () => {
            if (this.follows.get(key) === lost) this.follows.delete(key);
            for (const each of [...followers.values()].flatMap((set) => [...set])) each.lost();
          },
          () => undefined,
        );
    }
    const { followers, connection } = follow;
    let listening = followers.get(upstreamUri);
    const first = !listening;
    listening ??= new Set();
    listening.add(follower);
    followers.set(upstreamUri, listening);
    const stop = () => {
      if (!listening.delete(follower) || listening.size > 0) return;
      followers.delete(upstreamUri);
      if (followers.size === 0) {
        if (this.follows.get(key) === follow) this.follows.delete(key);
        void connection.then((open) => open.close()).catch(() => undefined);
      } else
        void connection
          .then((open) => open.request('resources/unsubscribe', { uri: upstreamUri }))
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
}
