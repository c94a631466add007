import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type ClientCapabilities } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { canonicalJson } from '../../common/canonical-json';
import { EventBus, isResync } from '../../events/event-bus';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { UpstreamConnector } from '../../upstream/upstream-connector.service';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import {
  authorizationContext,
  sameTarget,
  type UpstreamTarget,
} from '../../upstream/upstream-target';
import { UpstreamTargets } from '../../upstream/upstream-targets.service';
import { type UpstreamCalls, type UpstreamRef } from '../protocol/mcp-call';
import { fromUpstream } from '../protocol/mcp-errors';
import { relayedCapabilities } from '../../upstream/upstream-connection';

/** A pooled connection unused this long (and idle) is closed. */
const IDLE_CLOSE_MS = 5 * 60_000;
const SWEEP_EVERY_MS = 60_000;
/** Upstream sessions of one gateway and authorization context, one per client declaration. */
const DECLARATIONS_PER_CONTEXT = 16;

interface Link {
  target: UpstreamTarget;
  connection: Promise<UpstreamConnection>;
  lastUsed: number;
  inFlight: number;
}

/** A listen following an upstream resource. */
export interface ResourceFollower {
  updated(): void;
  /** The upstream connection is gone: no more updates will come. */
  lost(): void;
}

/** Fingerprints of the declarations seen lately, by their JSON as sent: clients repeat theirs. */
const fingerprints = new Map<string, string>();
const FINGERPRINTS_KEPT = 1024;
/** Longer declarations are digested each time rather than kept. */
const FINGERPRINT_KEY_CHARS = 1024;

/** A stable digest of what a client declared: equal declarations share upstream sessions. */
export function capabilityFingerprint(capabilities: ClientCapabilities): string {
  const sent = JSON.stringify(capabilities);
  let fingerprint = fingerprints.get(sent);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256')
      .update(canonicalJson(relayedCapabilities(capabilities)))
      .digest('hex')
      .slice(0, 16);
    if (sent.length > FINGERPRINT_KEY_CHARS) return fingerprint;
    if (fingerprints.size >= FINGERPRINTS_KEPT) fingerprints.clear();
    fingerprints.set(sent, fingerprint);
  }
  return fingerprint;
}

/**
 * Upstream connections for requests that have no downstream session (the 2026-07-28 wire), shared
 * on this replica by key: gateway, authorization context (the acting user for a per-user OAuth
 * gateway, else the gateway's one credential), and the fingerprint of what the client declared.
 * A 2026-07-28 upstream needs no session at all: its connection is a handshake-free client whose
 * every request states the caller's own capabilities. A 2025 upstream gets a pooled session,
 * initialized with the declared capabilities; since many clients share it, nothing it sends
 * outside a call reaches anyone, and what it asks of the client during one (sampling,
 * elicitation, roots) is answered with an error by the core (a modern client cannot be asked
 * mid-call: that becomes an input_required round once calls are relayed).
 *
 * Targets are cached per gateway, so a call over an open link reads nothing from the database;
 * the bus's catalog.changed drops them and retires links whose endpoint changed.
 */
@Injectable()
export class SharedUpstreams implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SharedUpstreams.name);
  private readonly targets = new Map<string, Promise<UpstreamTarget | null>>();
  private readonly links = new Map<string, Link>();
  /** Connections that follow resources for listens, by gateway and authorization context. */
  private readonly follows = new Map<
    string,
    { connection: Promise<UpstreamConnection>; followers: Map<string, Set<ResourceFollower>> }
  >();
  private unsubscribe?: () => void;
  private sweep?: NodeJS.Timeout;

  constructor(
    private readonly connector: UpstreamConnector,
    private readonly upstreamTargets: UpstreamTargets,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type !== 'catalog.changed') return;
      const gatewayIds = isResync(event) ? [...this.targets.keys()] : event.gatewayIds;
      void this.refresh(gatewayIds).catch((error: unknown) =>
        this.logger.warn(`Could not refresh shared upstream connections: ${String(error)}`),
      );
    });
    this.sweep = setInterval(() => this.closeIdle(), SWEEP_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.sweep);
    const links = [...this.links.values()];
    this.links.clear();
    const follows = [...this.follows.values()];
    this.follows.clear();
    await Promise.all([
      ...links.map((link) => closeLink(link)),
      ...follows.map(({ connection }) => closeLink({ connection })),
    ]);
  }

  /** How many connections the pool holds now. */
  get size(): number {
    return this.links.size;
  }

  /** The upstream calls of one request of this principal, which declared these capabilities. */
  for(principal: Principal, capabilities: ClientCapabilities): UpstreamCalls {
    const fingerprint = capabilityFingerprint(capabilities);
    return {
      call: async (ref, work) => {
        try {
          return await this.with(ref, principal, capabilities, fingerprint, work);
        } catch (error) {
          if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
            throw fromUpstream(error, ref.gatewaySlug, this.connector.timeoutMs);
          throw error;
        }
      },
    };
  }

  /**
   * Runs `work` on the pooled connection; a broken one is dropped so the next use reconnects, and
   * one that a restarted upstream forgot (it ran nothing) gets one retry.
   */
  private async with<T>(
    ref: UpstreamRef,
    principal: Principal,
    capabilities: ClientCapabilities,
    fingerprint: string,
    work: (connection: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const target = await this.target(ref.gatewayId);
      if (!target)
        throw new UpstreamFailure('unreachable', 'the gateway of this tool is no longer active');
      const key = `${ref.gatewayId}\0${authorizationContext(target, { userId: principal.userId })}\0${fingerprint}`;
      const link = this.link(key, target, principal, capabilities);
      link.inFlight++;
      link.lastUsed = Date.now();
      try {
        const connection = await link.connection;
        try {
          return await work(connection);
        } catch (error) {
          const expired = error instanceof UpstreamFailure && error.kind === 'session-expired';
          if (connection.closed || expired) this.forget(key, link);
          if (attempt === 1 && expired) continue;
          throw error;
        }
      } finally {
        link.inFlight--;
      }
    }
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
    const target = await this.target(ref.gatewayId);
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

  private target(gatewayId: string): Promise<UpstreamTarget | null> {
    let found = this.targets.get(gatewayId);
    if (!found) {
      found = this.upstreamTargets.find(gatewayId);
      this.targets.set(gatewayId, found);
      found.catch(() => this.targets.get(gatewayId) === found && this.targets.delete(gatewayId));
    }
    return found;
  }

  private link(
    key: string,
    target: UpstreamTarget,
    principal: Principal,
    capabilities: ClientCapabilities,
  ): Link {
    const existing = this.links.get(key);
    if (existing) return existing;
    this.makeRoom(key.slice(0, key.lastIndexOf('\0') + 1));
    const link: Link = {
      target,
      connection: this.connector.open(target, {
        capabilities: relayedCapabilities(capabilities),
        // Shared: nothing an upstream sends outside a call has one client to go to.
        listener: {},
        listen: false,
        actingFor: { userId: principal.userId },
      }),
      lastUsed: Date.now(),
      inFlight: 0,
    };
    this.links.set(key, link);
    link.connection.catch(() => this.links.get(key) === link && this.links.delete(key));
    return link;
  }

  /**
   * Declarations are the client's to vary: past DECLARATIONS_PER_CONTEXT links of one gateway and
   * authorization context, the least recently used idle one is closed.
   */
  private makeRoom(prefix: string): void {
    const same = [...this.links].filter(([key]) => key.startsWith(prefix));
    if (same.length < DECLARATIONS_PER_CONTEXT) return;
    const idle = same
      .filter(([, link]) => link.inFlight === 0)
      .sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
    if (idle) this.forget(idle[0], idle[1]);
  }

  private forget(key: string, link: Link): void {
    if (this.links.get(key) === link) this.links.delete(key);
    void closeLink(link);
  }

  /** Gateways changed: their targets are read again, and links to a changed endpoint retired. */
  private async refresh(gatewayIds: readonly string[]): Promise<void> {
    for (const gatewayId of gatewayIds) this.targets.delete(gatewayId);
    const changed = new Set(gatewayIds);
    for (const [key, link] of [...this.links]) {
      if (!changed.has(link.target.gatewayId)) continue;
      const now = await this.target(link.target.gatewayId).catch(() => null);
      if (!sameTarget(link.target, now)) this.forget(key, link);
    }
  }

  private closeIdle(now = Date.now()): void {
    for (const [key, link] of [...this.links])
      if (link.inFlight === 0 && now - link.lastUsed > IDLE_CLOSE_MS) this.forget(key, link);
  }
}

async function closeLink(link: Pick<Link, 'connection'>): Promise<void> {
  await (await link.connection.catch(() => null))?.close().catch(() => undefined);
}
