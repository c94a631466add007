import {
  type ClientCapabilities,
  type JSONRPCNotification,
  type LoggingLevel,
} from '@modelcontextprotocol/server';
import { type UpstreamConnection, type UpstreamListener } from '../../upstream/upstream-connection';
import { type UpstreamConnector } from '../../upstream/upstream-connector.service';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { sameTarget, type UpstreamTarget } from '../../upstream/upstream-target';
import { type UpstreamTargets } from '../../upstream/upstream-targets.service';
import { type UpstreamCalls, type UpstreamRef } from '../protocol/mcp-call';
import { relayedCapabilities } from '../../upstream/upstream-connection';
import { fromUpstream } from '../protocol/mcp-errors';

interface Link {
  target: UpstreamTarget;
  connection: UpstreamConnection;
}

/**
 * One downstream session's own upstream sessions on this replica, one per gateway, opened on first
 * use. Never shared between downstream sessions, so whatever an upstream sends (progress, logs,
 * sampling, elicitation, roots requests, resource updates) can only reach the client that made it.
 */
export class SessionUpstreams implements UpstreamCalls {
  private readonly links = new Map<string, Promise<Link>>();
  private logLevel: LoggingLevel | null = null;

  constructor(
    /** The client's, read when a connection opens: the older transport learns them late. */
    private readonly capabilities: () => ClientCapabilities,
    private readonly connector: UpstreamConnector,
    private readonly targets: UpstreamTargets,
    /** Whose own OAuth tokens per-user upstreams get: the session's user. */
    private readonly actingFor: { userId: string | null },
    /** Messages outside any call, with the gateway they came from. */
    private readonly listener: (gatewayId: string) => UpstreamListener,
  ) {}

  /** The gateways this session has upstream sessions with. */
  get gatewayIds(): string[] {
    return [...this.links.keys()];
  }

  /**
   * Runs a client's request on this session's connection to the gateway; what the upstream
   * exchange threw becomes the JSON-RPC error the client gets.
   */
  async call<T>(
    ref: UpstreamRef,
    work: (connection: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.with(ref.gatewayId, work);
    } catch (error) {
      if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
        throw fromUpstream(error, ref.gatewaySlug, this.connector.timeoutMs);
      throw error;
    }
  }

  /**
   * Runs `work` on this session's connection to the gateway. A broken one is dropped so the next
   * use reconnects, and one that a restarted upstream forgot (it ran nothing) gets one retry.
   */
  async with<T>(
    gatewayId: string,
    work: (connection: UpstreamConnection, target: UpstreamTarget) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const pending = this.link(gatewayId);
      const { connection, target } = await pending;
      try {
        return await work(connection, target);
      } catch (error) {
        const expired = error instanceof UpstreamFailure && error.kind === 'session-expired';
        if (connection.closed || expired) this.forget(gatewayId, pending);
        if (attempt === 1 && expired) continue;
        throw error;
      }
    }
  }

  /** The target a connection of this gateway would use, or null when the gateway is not active. */
  async target(gatewayId: string): Promise<UpstreamTarget | null> {
    const existing = await this.links.get(gatewayId)?.catch(() => null);
    return existing?.target ?? this.targets.find(gatewayId);
  }

  /**
   * Retires connections whose gateway now has another endpoint or is no longer active (null in
   * `targets`), so that the next use connects afresh; the others keep serving.
   */
  async refresh(targets: ReadonlyMap<string, UpstreamTarget | null>): Promise<void> {
    for (const [gatewayId, target] of targets) {
      const pending = this.links.get(gatewayId);
      const link = await pending?.catch(() => null);
      if (pending && link && !sameTarget(link.target, target)) this.forget(gatewayId, pending);
    }
  }

  /** The client's level, asked of every upstream; one that does not take it fails nothing. */
  async setLogLevel(level: LoggingLevel | null): Promise<void> {
    this.logLevel = level;
    if (level) await this.each((connection) => this.askLogLevel(connection, level));
  }

  async notifyAll(notification: JSONRPCNotification): Promise<void> {
    await this.each((connection) => connection.notify(notification.method, notification.params));
  }

  async close(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(
      links.map(async (link) => (await link.catch(() => null))?.connection.close()),
    );
  }

  private async each(work: (connection: UpstreamConnection) => Promise<unknown>): Promise<void> {
    await Promise.allSettled(
      [...this.links.values()].map(async (pending) => {
        const link = await pending.catch(() => null);
        if (link && !link.connection.closed) await work(link.connection);
      }),
    );
  }

  private link(gatewayId: string): Promise<Link> {
    const existing = this.links.get(gatewayId);
    if (existing) return existing;
    const connecting = this.connect(gatewayId);
    this.links.set(gatewayId, connecting);
    connecting.catch(
      () => this.links.get(gatewayId) === connecting && this.links.delete(gatewayId),
    );
    return connecting;
  }

  /** Drops a broken connection, unless another call has already replaced it. */
  private forget(gatewayId: string, pending: Promise<Link>): void {
    if (this.links.get(gatewayId) === pending) this.links.delete(gatewayId);
    void pending.then((link) => link.connection.close()).catch(() => undefined);
  }

  private async connect(gatewayId: string): Promise<Link> {
    const target = await this.targets.find(gatewayId);
    if (!target)
      throw new UpstreamFailure('unreachable', 'the gateway of this tool is no longer active');
    const connection = await this.connector.open(target, {
      capabilities: relayedCapabilities(this.capabilities()),
      listener: this.listener(gatewayId),
      actingFor: this.actingFor,
      callerEra: 'legacy',
    });
    if (this.logLevel) await this.askLogLevel(connection, this.logLevel).catch(() => undefined);
    return { target, connection };
  }

  private async askLogLevel(connection: UpstreamConnection, level: LoggingLevel): Promise<void> {
    if (connection.serverCapabilities.logging)
      await connection.request('logging/setLevel', { level });
  }
}
