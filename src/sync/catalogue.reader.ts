import { Injectable } from '@nestjs/common';
import { type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { UI_EXTENSION, UI_RESOURCE_MIME_TYPE } from '../tools/tool-ui';
import { type UpstreamConnection } from '../upstream/upstream-connection';
import { UpstreamConnector } from '../upstream/upstream-connector.service';
import { listAll } from '../upstream/upstream-lists';
import { type UpstreamGateway } from '../upstream/upstream-target';
import { UpstreamTargets } from '../upstream/upstream-targets.service';

/**
 * Sync declares the MCP Apps extension: ext-apps tells servers to attach `_meta.ui` only for
 * clients that do, and the registry must see every tool's UI to serve it to the clients that can.
 */
export const SYNC_CAPABILITIES: ClientCapabilities = {
  extensions: { [UI_EXTENSION]: { mimeTypes: [UI_RESOURCE_MIME_TYPE] } },
};

/** What an upstream offers, as it arrived: every entry is still untrusted. */
export interface UpstreamCatalogue {
  tools: unknown[];
}

/** The notifications that say an upstream's catalogue changed. */
export const LIST_CHANGED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
]);

/** Reads upstream catalogues, and keeps sessions open to hear when they change. */
@Injectable()
export class CatalogueReader {
  constructor(
    private readonly connector: UpstreamConnector,
    private readonly targets: UpstreamTargets,
  ) {}

  get timeoutMs(): number {
    return this.connector.timeoutMs;
  }

  /** A long-lived session that calls `changed` on each list_changed notification. */
  watch(gateway: UpstreamGateway, changed: () => void): Promise<UpstreamConnection> {
    return this.connector.open(this.targets.targetOf(gateway), {
      capabilities: SYNC_CAPABILITIES,
      listener: {
        notification: (notification) => {
          if (LIST_CHANGED_NOTIFICATIONS.has(notification.method)) changed();
        },
      },
    });
  }

  /** The whole catalogue, over a short-lived session. */
  async read(gateway: UpstreamGateway, signal?: AbortSignal): Promise<UpstreamCatalogue> {
    const connection = await this.connector.open(this.targets.targetOf(gateway), {
      capabilities: SYNC_CAPABILITIES,
    });
    try {
      return { tools: await listAll(connection, 'tools/list', signal) };
    } finally {
      await connection.close();
    }
  }
}
