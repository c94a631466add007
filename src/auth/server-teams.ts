import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { EventBus, isResync } from '../events/event-bus';
import { Server } from '../servers/server.entity';

/** The server does not exist. */
export const NO_SERVER = Symbol('no server');

const LIMIT = 20_000;

/**
 * Which team owns each virtual server, cached for the MCP access check on every request. Server
 * edits announce `servers.changed`, which drops the entries on every replica.
 */
@Injectable()
export class ServerTeams implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, string | null | typeof NO_SERVER>();
  private generation = 0;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event)) {
        this.generation += 1;
        this.cache.clear();
      } else if (event.type === 'servers.changed') {
        this.generation += 1;
        for (const id of event.serverIds) this.cache.delete(id);
      }
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The owning team's id, null for a global server, NO_SERVER when there is no such server. */
  async teamOf(serverId: string): Promise<string | null | typeof NO_SERVER> {
    const cached = this.cache.get(serverId);
    if (cached !== undefined) return cached;
    if (!isUUID(serverId)) return NO_SERVER;
    const generation = this.generation;
    const server = await this.dataSource
      .getRepository(Server)
      .findOne({ select: { id: true, teamId: true }, where: { id: serverId } });
    const team = server ? server.teamId : NO_SERVER;
    if (generation === this.generation) {
      if (this.cache.size >= LIMIT) this.cache.clear();
      this.cache.set(serverId, team);
    }
    return team;
  }
}
