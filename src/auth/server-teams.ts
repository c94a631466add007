import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { LastKnownCache } from '../common/last-known-cache';
import { EventBus, isResync } from '../events/event-bus';
import { Metrics } from '../observability/metrics';
import { Server } from '../servers/server.entity';

/** The server does not exist. */
export const NO_SERVER = Symbol('no server');

const LIMIT = 20_000;

/**
 * Which team owns each virtual server, cached for the MCP access check on every request. Server
 * edits announce `servers.changed`, which drops the entries on every replica. While the database
 * is unavailable, what was known keeps serving (see LastKnownCache).
 */
@Injectable()
export class ServerTeams implements OnModuleInit, OnModuleDestroy {
  private readonly cache: LastKnownCache<string | null | typeof NO_SERVER>;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    metrics: Metrics,
  ) {
    this.cache = new LastKnownCache({
      ttlMs: () => Infinity,
      limit: LIMIT,
      onStale: () => metrics.staleReads.inc({ cache: 'server-team' }),
      logger: new Logger(ServerTeams.name),
      describe: (id) => `the team of server ${id}`,
    });
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event)) this.cache.invalidateAll();
      else if (event.type === 'servers.changed') {
        this.cache.invalidateFlights();
        for (const id of event.serverIds) this.cache.delete(id);
      }
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The owning team's id, null for a global server, NO_SERVER when there is no such server. */
  async teamOf(serverId: string): Promise<string | null | typeof NO_SERVER> {
    if (!isUUID(serverId)) return NO_SERVER;
    return this.cache.get(serverId, async () => {
      const server = await this.dataSource
        .getRepository(Server)
        .findOne({ select: { id: true, teamId: true }, where: { id: serverId } });
      return server ? server.teamId : NO_SERVER;
    });
  }
}
