import { hash } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type ClientCapabilities, type Result } from '@modelcontextprotocol/client';
import { canonicalJson } from '../common/canonical-json';
import { EventBus, isResync } from '../events/event-bus';
import { PARKED_STATE, ParkedCalls } from './sessions/parked-calls';
import {
  type ActingFor,
  type Affinity,
  type OpenOptions,
  type RequestOptions,
  type RequestSink,
  type UpstreamConnection,
} from './upstream-connection';
import { relayedCapabilities, STATELESS_EXTENSIONS } from './client-capabilities';
import { UpstreamConnector } from './upstream-connector.service';
import { UpstreamFailure } from './upstream-error';
import { sameTarget, type UpstreamTarget } from './upstream-target';
import { UpstreamTargets } from './upstream-targets.service';
import { crowdedOut, idleLinks, type Link, SWEEP_EVERY_MS } from './upstream-links';
import { boundedAll } from '../common/bounded-all';
import { Memo } from '../common/memo';

/**
 * An answer of `request` that asks the client for input (2026-07-28 `input_required`): it is not
 * the result, and nothing may cache it.
 */
export function isInputRequired(result: Result): boolean {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}

/** How a connection of the caller's own is opened; its authorization context follows `actingFor`. */
export type OwnConnection = Pick<OpenOptions, 'capabilities' | 'listener' | 'listen' | 'actingFor'>;

/** A declaration as Portico relays it, with the digest equal declarations share. */
interface Declaration {
  fingerprint: string;
  relayed: ClientCapabilities;
}

/** The declarations seen lately, by their JSON as sent: clients repeat theirs. */
const declarations = new Memo<string, Declaration>(1024);
/** Longer declarations are digested each time rather than kept. */
const DECLARATION_KEY_CHARS = 1024;

/** What a client declared, as relayed upstream and digested: equal ones share connections. */
function declarationOf(capabilities: ClientCapabilities): Declaration {
  const sent = JSON.stringify(capabilities);
  const known = declarations.get(sent);
  if (known) return known;
  const relayed = relayedCapabilities(capabilities, STATELESS_EXTENSIONS);
  const declaration = {
    fingerprint: hash('sha256', canonicalJson(relayed), 'hex').slice(0, 16),
    relayed,
  };
  return sent.length > DECLARATION_KEY_CHARS
    ? declaration
    : declarations.remember(sent, declaration);
}

/** The affinity of a request without a session: shared by every caller that declared the same. */
export function sharedAffinity(capabilities: ClientCapabilities, actingFor: ActingFor): Affinity {
  const { fingerprint, relayed } = declarationOf(capabilities);
  return { key: fingerprint, shared: true, capabilities: relayed, actingFor };
}

/**
 * Whose authorization a connection to the target carries: a per-user OAuth upstream sees the
 * acting user's own token, a token-exchange upstream one exchanged for the caller's (Portico's own
 * without a caller); every other upstream the gateway's one credential, shared by all.
 */
export function authorizationContext(target: UpstreamTarget, actingFor?: ActingFor): string {
  const { credentials } = target.endpoint;
  if (credentials.type === 'oauth' && credentials.mode === 'per-user' && actingFor)
    return `user:${actingFor.userId ?? '-'}`;
  if (credentials.type === 'token-exchange')
    return actingFor ? `caller:${actingFor.subject ?? '-'}` : 'portico';
  return 'gateway';
}

/**
 * The one way to upstreams, in the era each speaks. Pooled for the MCP core of both eras, REST
 * invoke and the playground: connections by gateway, authorization context (the acting user for
 * a per-user OAuth gateway, else the gateway's one credential) and affinity, opened on first use.
 * A connection that breaks is dropped so the next use reconnects, and a call an upstream forgot
 * the session of (it ran nothing) is tried once more. Targets are cached per gateway: a call over
 * an open connection reads nothing from the database; the bus's `catalog.changed` drops them and
 * retires connections whose endpoint changed. Sync, the CLI and the watches hold connections of
 * their own (`open`), in the same authorization contexts.
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
    await Promise.all([...this.links.values()].map((link) => this.forget(link)));
  }

  get timeoutMs(): number {
    return this.connector.timeoutMs;
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
      const link = this.link(target, affinity, authorizationContext(target, affinity.actingFor));
      link.inFlight++;
      link.lastUsed = Date.now();
      try {
        const connection = await link.connection;
        try {
          return await work(connection, target);
        } catch (error) {
          const expired = error instanceof UpstreamFailure && error.kind === 'session-expired';
          if (connection.closed || expired) void this.forget(link);
          if (!expired) throw error;
          if (attempt === 1) continue;
          // It is there and began a session, then did not know it: an upstream that speaks badly.
          throw new UpstreamFailure('protocol', 'it answered 404 for the session it just began');
        }
      } finally {
        link.inFlight--;
      }
    }
  }

  /**
   * One request of a client that may take input rounds (tools/call, prompts/get, resources/read):
   * a round the upstream asks is its result (a 2026-07-28 upstream's own; or a 2025 upstream's
   * requests of a client that cannot be asked mid-call, which the 2025 adapter parks the call for
   * meanwhile), and the retry that answers it (its `requestState`) continues it, wherever the
   * call is held. A client that can be asked (its sink's `ask`) is asked as the 2025 upstream
   * asks. Throws as `call`.
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
    const options: RequestOptions = {
      signal,
      sink,
      // Plain values: a getter in this literal, made per request, held the request (its sink,
      // its response) past every young collection, doubling a modern call's garbage collection.
      caller: { capabilities: affinity.capabilities, logLevel: from.meta.logLevel },
      allowInputRequired: true,
    };
    return this.call(gatewayId, affinity, (connection) =>
      connection.request(method, params, options),
    );
  }

  /**
   * A connection of the caller's own, outside the pool, in the authorization context of whom it
   * acts for (Portico's own without anyone). The caller closes it.
   */
  open(target: UpstreamTarget, options: OwnConnection): Promise<UpstreamConnection> {
    const authorization = authorizationContext(target, options.actingFor);
    return this.connector.open(target, { ...options, authorization });
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
    await Promise.all(this.linksOf(affinity).map((link) => this.forget(link)));
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

  /** The link of the gateway, authorization context and affinity, opened when there is none. */
  private link(target: UpstreamTarget, affinity: Affinity, context: string): Link {
    const prefix = `${target.gatewayId}\0${context}\0`;
    const key = prefix + affinity.key;
    const existing = this.links.get(key);
    if (existing) return existing;
    const crowded = affinity.shared && crowdedOut(this.links.values(), prefix);
    if (crowded) void this.forget(crowded);
    const link: Link = {
      key,
      target,
      affinity,
      connection: this.openLink(target, affinity, context),
      lastUsed: Date.now(),
      inFlight: 0,
    };
    this.links.set(key, link);
    link.connection.catch(() => this.forget(link));
    return link;
  }

  private async openLink(
    target: UpstreamTarget,
    affinity: Affinity,
    context: string,
  ): Promise<UpstreamConnection> {
    const connection = await this.connector.open(target, {
      authorization: context,
      capabilities: affinity.capabilities,
      // Shared: nothing an upstream sends outside a call has one client to go to.
      listener: affinity.listener?.(target.gatewayId) ?? {},
      listen: !affinity.shared,
      actingFor: affinity.actingFor,
      parking: this.parked,
      ...(affinity.shared ? {} : { callerEra: '2025' as const }),
    });
    const level = affinity.logLevel?.();
    if (level && connection.serverCapabilities.logging)
      await connection.request('logging/setLevel', { level }).catch(() => undefined);
    return connection;
  }

  /** Drops the link, so that the next use reconnects, and closes its connection. */
  private async forget(link: Link): Promise<void> {
    if (this.links.get(link.key) === link) this.links.delete(link.key);
    await (await link.connection.catch(() => null))?.close().catch(() => undefined);
  }

  /** Gateways changed: targets read again (4 at a time), stale links retired, gone ones forgotten. */
  private async refresh(gatewayIds: readonly string[]): Promise<void> {
    for (const gatewayId of gatewayIds) this.targets.delete(gatewayId);
    const found = await boundedAll(gatewayIds, 4, (id) => this.target(id).catch(() => undefined));
    const now = new Map(found.map((target, i) => [gatewayIds[i]!, target]));
    for (const [gatewayId, target] of now) if (target === null) this.connector.forget(gatewayId);
    for (const link of [...this.links.values()]) {
      const { gatewayId } = link.target;
      if (now.has(gatewayId) && !sameTarget(link.target, now.get(gatewayId) ?? null))
        void this.forget(link);
    }
  }

  private closeIdle(): void {
    for (const link of idleLinks(this.links.values(), Date.now())) void this.forget(link);
  }
}
