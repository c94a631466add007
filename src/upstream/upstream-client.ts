import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type ClientCapabilities,
  type LoggingLevel,
  type Result,
} from '@modelcontextprotocol/client';
import { canonicalJson } from '../common/canonical-json';
import { EventBus, isResync } from '../events/event-bus';
import { PARKED_STATE, ParkedCalls } from './sessions/parked-calls';
import { SessionConnection } from './sessions/session-connection';
import {
  relayedCapabilities,
  type RequestSink,
  type UpstreamConnection,
  type UpstreamListener,
} from './upstream-connection';
import { UpstreamConnector } from './upstream-connector.service';
import { UpstreamFailure } from './upstream-error';
import { authorizationContext, sameTarget, type UpstreamTarget } from './upstream-target';
import { UpstreamTargets } from './upstream-targets.service';

/** A shared connection unused this long (and idle) is closed. */
const IDLE_CLOSE_MS = 5 * 60_000;
const SWEEP_EVERY_MS = 60_000;
/** Shared connections of one gateway and authorization context, one per client declaration. */
const DECLARATIONS_PER_CONTEXT = 16;

/**
 * Whose connections a request uses. A 2025 session has its own (`session`), opened on first use
 * and closed with it, so that whatever an upstream sends outside a call (logs, list changes, its
 * own requests) can only reach that session. A request without a session (the 2026-07-28 wire,
 * REST, sync) shares a pool keyed by what its client declared (`shared`).
 */
export interface Affinity {
  /** Unique per session, or the fingerprint of the declaration for shared connections. */
  readonly key: string;
  readonly shared: boolean;
  /** What Portico declares upstream for the caller's client. */
  readonly capabilities: ClientCapabilities;
  /** Whose own token a per-user OAuth upstream gets. */
  readonly actingFor: { userId: string | null };
  /** What an upstream sends outside calls, with the gateway it came from; none when shared. */
  readonly listener?: (gatewayId: string) => UpstreamListener;
  /** The level a session asked for, set on each of its connections as it opens. */
  readonly logLevel?: () => LoggingLevel | null;
}

interface Link {
  key: string;
  target: UpstreamTarget;
  affinity: Affinity;
  connection: Promise<UpstreamConnection>;
  lastUsed: number;
  inFlight: number;
}

/** A declaration as Portico relays it, with the digest equal declarations share. */
interface Declaration {
  fingerprint: string;
  relayed: ClientCapabilities;
}

/** The declarations seen lately, by their JSON as sent: clients repeat theirs. */
const declarations = new Map<string, Declaration>();
const DECLARATIONS_KEPT = 1024;
/** Longer declarations are digested each time rather than kept. */
const DECLARATION_KEY_CHARS = 1024;

/** What a client declared, as relayed upstream and digested: equal ones share connections. */
function declarationOf(capabilities: ClientCapabilities): Declaration {
  const sent = JSON.stringify(capabilities);
  let declaration = declarations.get(sent);
  if (declaration === undefined) {
    const relayed = relayedCapabilities(capabilities);
    declaration = {
      fingerprint: createHash('sha256').update(canonicalJson(relayed)).digest('hex').slice(0, 16),
      relayed,
    };
    if (sent.length > DECLARATION_KEY_CHARS) return declaration;
    if (declarations.size >= DECLARATIONS_KEPT) declarations.clear();
    declarations.set(sent, declaration);
  }
  return declaration;
}

/** A stable digest of what a client declared: equal declarations share upstream connections. */
export function capabilityFingerprint(capabilities: ClientCapabilities): string {
  return declarationOf(capabilities).fingerprint;
}

/** The affinity of a request without a session: shared by every caller that declared the same. */
export function sharedAffinity(
  capabilities: ClientCapabilities,
  actingFor: { userId: string | null },
): Affinity {
  const { fingerprint, relayed } = declarationOf(capabilities);
  return { key: fingerprint, shared: true, capabilities: relayed, actingFor };
}

/**
 * The one way to an upstream's connections, for every caller (the MCP core of both eras, REST
 * invoke, sync): connections by gateway, authorization context (the acting user for a per-user
 * OAuth gateway, else the gateway's one credential) and affinity, opened on first use in the era
 * the upstream speaks. A connection that breaks is dropped so the next use reconnects, and a call
 * an upstream forgot the session of (it ran nothing) is tried once more. Targets are cached per
 * gateway: a call over an open connection reads nothing from the database; the bus's
 * `catalog.changed` drops them and retires connections whose endpoint changed.
 */
@Injectable()
export class UpstreamClient implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(UpstreamClient.name);
  private readonly targets = new Map<string, Promise<UpstreamTarget | null>>();
  private readonly links = new Map<string, Link>();
  private unsubscribe?: () => void;
  private sweep?: NodeJS.Timeout;

  constructor(
    private readonly connector: UpstreamConnector,
    private readonly upstreamTargets: UpstreamTargets,
    private readonly bus: EventBus,
    private readonly parked: ParkedCalls,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type !== 'catalog.changed') return;
      const gatewayIds = isResync(event) ? [...this.targets.keys()] : event.gatewayIds;
      void this.refresh(gatewayIds).catch((error: unknown) =>
        this.logger.warn(`Could not refresh upstream connections: ${String(error)}`),
      );
    });
    this.sweep = setInterval(() => this.closeIdle(), SWEEP_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.sweep);
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((link) => closeLink(link)));
  }

  get timeoutMs(): number {
    return this.connector.timeoutMs;
  }

  /** How many connections this replica holds now. */
  get size(): number {
    return this.links.size;
  }

  /**
   * Runs `work` on the affinity's connection to the gateway. Throws an UpstreamFailure (the
   * gateway no longer active included) or the upstream's UpstreamRpcError.
   */
  async call<T>(
    gatewayId: string,
    affinity: Affinity,
    work: (connection: UpstreamConnection, target: UpstreamTarget) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const target = await this.target(gatewayId);
      if (!target)
        throw new UpstreamFailure('unreachable', 'the gateway of this tool is no longer active');
      const key = `${gatewayId}\0${authorizationContext(target, affinity.actingFor)}\0${affinity.key}`;
      const link = this.link(key, target, affinity);
      link.inFlight++;
      link.lastUsed = Date.now();
      try {
        const connection = await link.connection;
        try {
          return await work(connection, target);
        } catch (error) {
          const expired = error instanceof UpstreamFailure && error.kind === 'session-expired';
          if (connection.closed || expired) this.forget(link);
          if (attempt === 1 && expired) continue;
          throw error;
        }
      } finally {
        link.inFlight--;
      }
    }
  }

  /**
   * One request of a client that may take input rounds (tools/call, prompts/get, resources/read):
   * a round the upstream asks is its result (a 2026-07-28 upstream's own; or a 2025 upstream's
   * requests of a client that cannot be asked mid-call, the call parked here meanwhile), and the
   * retry that answers it (its `requestState`) continues it, wherever the call is held. A client
   * that can be asked (its sink's `ask`) is asked as the 2025 upstream asks. Throws as `call`.
   */
  request(
    gatewayId: string,
    affinity: Affinity,
    method: string,
    params: Record<string, unknown>,
    from: { signal?: AbortSignal; sink: RequestSink; meta: { logLevel: string | null } },
  ): Promise<Result> {
    const { signal, sink } = from;
    const state = params.requestState;
    if (typeof state === 'string' && state.startsWith(PARKED_STATE))
      return this.parked.resume(state, params.inputResponses, sink, signal);
    const options = {
      signal,
      sink,
      caller: {
        // Read only by a 2026-07-28 upstream, which states them in every request.
        get capabilities() {
          return affinity.capabilities;
        },
        logLevel: from.meta.logLevel,
      },
      allowInputRequired: true,
    };
    return this.call(gatewayId, affinity, (connection) =>
      connection instanceof SessionConnection && !sink.ask
        ? this.parked.run(
            (parkable, callSignal) =>
              connection.request(method, params, {
                ...options,
                sink: parkable,
                signal: callSignal,
              }),
            sink,
            signal,
            affinity.capabilities,
          )
        : connection.request(method, params, options),
    );
  }

  /** Runs `work` on each open connection of the affinity; one that fails fails nothing else. */
  async each(
    affinity: Affinity,
    work: (connection: UpstreamConnection) => Promise<unknown>,
  ): Promise<void> {
    await Promise.allSettled(
      this.linksOf(affinity).map(async (link) => {
        const connection = await link.connection.catch(() => null);
        if (connection && !connection.closed) await work(connection);
      }),
    );
  }

  /** Closes the affinity's connections (its session ended). */
  async release(affinity: Affinity): Promise<void> {
    const links = this.linksOf(affinity);
    for (const link of links) if (this.links.get(link.key) === link) this.links.delete(link.key);
    await Promise.all(links.map(closeLink));
  }

  /** The active gateway's target, cached until the catalogue changes; null when not active. */
  target(gatewayId: string): Promise<UpstreamTarget | null> {
    let found = this.targets.get(gatewayId);
    if (!found) {
      found = this.upstreamTargets.find(gatewayId);
      this.targets.set(gatewayId, found);
      found.catch(() => this.targets.get(gatewayId) === found && this.targets.delete(gatewayId));
    }
    return found;
  }

  private linksOf(affinity: Affinity): Link[] {
    return [...this.links.values()].filter((link) => link.affinity.key === affinity.key);
  }

  private link(key: string, target: UpstreamTarget, affinity: Affinity): Link {
    const existing = this.links.get(key);
    if (existing) return existing;
    if (affinity.shared) this.makeRoom(key.slice(0, key.lastIndexOf('\0') + 1));
    const link: Link = {
      key,
      target,
      affinity,
      connection: this.open(target, affinity),
      lastUsed: Date.now(),
      inFlight: 0,
    };
    this.links.set(key, link);
    link.connection.catch(() => this.links.get(key) === link && this.links.delete(key));
    return link;
  }

  private async open(target: UpstreamTarget, affinity: Affinity): Promise<UpstreamConnection> {
    const connection = await this.connector.open(target, {
      capabilities: affinity.capabilities,
      // Shared: nothing an upstream sends outside a call has one client to go to.
      listener: affinity.listener?.(target.gatewayId) ?? {},
      listen: !affinity.shared,
      actingFor: affinity.actingFor,
      ...(affinity.shared ? {} : { callerEra: 'legacy' as const }),
    });
    const level = affinity.logLevel?.();
    if (level && connection.serverCapabilities.logging)
      await connection.request('logging/setLevel', { level }).catch(() => undefined);
    return connection;
  }

  /**
   * Declarations are the client's to vary: past DECLARATIONS_PER_CONTEXT shared connections of
   * one gateway and authorization context, the least recently used idle one is closed.
   */
  private makeRoom(prefix: string): void {
    const same = [...this.links.values()].filter(
      (link) => link.affinity.shared && link.key.startsWith(prefix),
    );
    if (same.length < DECLARATIONS_PER_CONTEXT) return;
    const idle = same
      .filter((link) => link.inFlight === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (idle) this.forget(idle);
  }

  private forget(link: Link): void {
    if (this.links.get(link.key) === link) this.links.delete(link.key);
    void closeLink(link);
  }

  /** Gateways changed: their targets are read again, and connections to a changed endpoint retired. */
  private async refresh(gatewayIds: readonly string[]): Promise<void> {
    for (const gatewayId of gatewayIds) this.targets.delete(gatewayId);
    const changed = new Set(gatewayIds);
    for (const link of [...this.links.values()]) {
      if (!changed.has(link.target.gatewayId)) continue;
      const now = await this.target(link.target.gatewayId).catch(() => null);
      if (!sameTarget(link.target, now)) this.forget(link);
    }
  }

  private closeIdle(now = Date.now()): void {
    for (const link of [...this.links.values()])
      if (link.affinity.shared && link.inFlight === 0 && now - link.lastUsed > IDLE_CLOSE_MS)
        this.forget(link);
  }
}

async function closeLink(link: Pick<Link, 'connection'>): Promise<void> {
  await (await link.connection.catch(() => null))?.close().catch(() => undefined);
}
