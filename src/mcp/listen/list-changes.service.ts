import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isResync } from '../../events/event-bus';
import { LISTS } from '../directory/scope-directory';
import { SessionRegistry } from '../sessions/session-registry.service';
import { Directories } from '../directory/directories.service';

const LIST_CHANGED_DEBOUNCE_MS = 100;

/**
 * What a change of the catalogue or of a server means for the sessions this replica holds, once
 * the directories have dropped what they held (so that what is read is current): each list whose
 * version moved since a client last saw it gets its list_changed, and sessions of a server that
 * was deleted or disabled end, their streams with them.
 */
@Injectable()
export class ListChanges implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ListChanges.name);
  private unsubscribe?: () => void;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly directories: Directories,
    private readonly registry: SessionRegistry,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.directories.onInvalidated((event) => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.announce(), LIST_CHANGED_DEBOUNCE_MS);
      if (event.type === 'servers.changed' || isResync(event))
        void this.closeOrphans(event.type === 'servers.changed' ? event.serverIds : []).catch(
          (error: unknown) =>
            this.logger.warn(`Could not close sessions of changed servers: ${String(error)}`),
        );
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearTimeout(this.timer);
  }

  private async announce(): Promise<void> {
    for (const runtime of this.registry.all()) {
      if (!runtime.hasStream) continue;
      try {
        const directory = await this.directories.get(runtime.scope);
        for (const kind of LISTS) {
          const version = directory?.version(kind) ?? '';
          if (runtime.seen.get(kind) === version) continue;
          runtime.seen.set(kind, version);
          runtime.toClient({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
        }
      } catch (error) {
        this.logger.warn(`Could not announce a list change: ${String(error)}`);
      }
    }
  }

  /**
   * Servers changed (all of them when no ids are given). Deletion removes the session rows without
   * any session event, and requests would only fail one by one.
   */
  private async closeOrphans(serverIds: readonly string[]): Promise<void> {
    for (const runtime of this.registry.all()) {
      const serverId = runtime.session.serverId;
      if (serverId === null || (serverIds.length > 0 && !serverIds.includes(serverId))) continue;
      if (!(await this.directories.get(runtime.scope))) await this.registry.close(runtime.id);
    }
  }
}
