import { Injectable } from '@nestjs/common';
import { tunedUpstream } from '../config/settings/gateway-settings';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { type ClientCapabilities, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { declaresSkills } from '../skills/skill-manifest';
import { listSkills, type UpstreamSkillListing } from '../skills/skill-listing';
import { UI_EXTENSION, UI_RESOURCE_MIME_TYPE } from '../tools/tool-ui';
import { type OwnConnection, UpstreamClient } from '../upstream/upstream-client';
import { type UpstreamConnection } from '../upstream/upstream-connection';
import { UpstreamFailure, UpstreamRpcError } from '../upstream/upstream-error';
import { listAll, type ListMethod } from '../upstream/upstream-lists';
import { type UpstreamGateway } from '../upstream/upstream-target';
import { UPSTREAM_LISTS, type UpstreamList } from '../events/event-bus';
import { UpstreamTargets } from '../upstream/upstream-targets.service';

/**
 * Sync declares the MCP Apps extension: ext-apps tells servers to attach `_meta.ui` only for
 * clients that do, and the registry must see every tool's UI to serve it to the clients that can.
 */
export const SYNC_CAPABILITIES: ClientCapabilities = {
  extensions: { [UI_EXTENSION]: { mimeTypes: [UI_RESOURCE_MIME_TYPE] } },
};

/**
 * What an upstream offers, as it arrived: every entry is still untrusted. A list the upstream does
 * not offer (no capability for it) is absent.
 */
export interface UpstreamCatalogue {
  tools: unknown[];
  resources?: unknown[];
  resourceTemplates?: unknown[];
  prompts?: unknown[];
  /** Its skills, where it declares the Skills extension. */
  skills?: UpstreamSkillListing;
}

/** How many of an upstream's timeouts a sync may take to read its whole catalogue. */
export const READ_TIMEOUTS = 10;

/** The notifications that say an upstream's catalogue changed, and the list each names. */
const LIST_CHANGED_NOTIFICATIONS: ReadonlyMap<string, UpstreamList> = new Map(
  UPSTREAM_LISTS.map((list) => [`notifications/${list}/list_changed`, list]),
);

/** Reads upstream catalogues, and keeps sessions open to hear when they change. */
@Injectable()
export class CatalogueReader {
  constructor(
    private readonly client: UpstreamClient,
    private readonly targets: UpstreamTargets,
    private readonly settings: UpstreamSettings,
  ) {}

  get timeoutMs(): number {
    return this.client.timeoutMs;
  }

  /**
   * A long-lived connection that calls `changed` with the list of each list_changed notification:
   * a 2025 session's GET stream, or a 2026-07-28 listen for list changes.
   */
  watch(
    gateway: UpstreamGateway,
    changed: (list: UpstreamList) => void,
  ): Promise<UpstreamConnection> {
    return this.open(gateway, {
      listen: true,
      listener: {
        notification: (notification) => {
          const list = LIST_CHANGED_NOTIFICATIONS.get(notification.method);
          if (list) changed(list);
        },
      },
    });
  }

  /**
   * The whole catalogue, over a connection of its own, closed once read: within READ_TIMEOUTS of
   * the gateway's timeouts, or the read fails. Each page has its own timeout, but an upstream that
   * sends page after page just inside it (up to 10,000 of them) would hold the sync, and a worker
   * of the periodic round, for days.
   */
  async read(gateway: UpstreamGateway, signal?: AbortSignal): Promise<UpstreamCatalogue> {
    const limitMs = READ_TIMEOUTS * tunedUpstream(this.settings, gateway.settings).timeoutMs;
    const connection = await this.open(gateway, { listen: false });
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new UpstreamFailure(
            'protocol',
            `the upstream did not send its whole catalogue within ${limitMs / 1000} s (${READ_TIMEOUTS} times its timeout)`,
          ),
        ),
      limitMs,
    );
    try {
      const reading = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      return await readCatalogue(connection, reading);
    } catch (error) {
      throw deadline.signal.aborted ? (deadline.signal.reason as UpstreamFailure) : error;
    } finally {
      clearTimeout(timer);
      await connection.close();
    }
  }

  /** A connection of Portico's own (its own credential, sync's capabilities) to the gateway. */
  private open(
    gateway: UpstreamGateway,
    options: Pick<OwnConnection, 'listen' | 'listener'>,
  ): Promise<UpstreamConnection> {
    const target = this.targets.targetOf(gateway);
    return this.client.open(target, { ...options, capabilities: SYNC_CAPABILITIES });
  }
}

/** Every list the upstream offers, each to its end: what a sync reads. */
export async function readCatalogue(
  connection: UpstreamConnection,
  signal?: AbortSignal,
): Promise<UpstreamCatalogue> {
  const offers = connection.serverCapabilities;
  const list = (method: ListMethod) => listAll(connection, method, signal);
  return {
    tools: offers.tools ? await list('tools/list') : [],
    ...(offers.resources
      ? {
          resources: await list('resources/list'),
          resourceTemplates: await optionalList(list('resources/templates/list')),
        }
      : {}),
    ...(offers.prompts ? { prompts: await list('prompts/list') } : {}),
    ...(declaresSkills(offers) ? { skills: await listSkills(connection, signal) } : {}),
  };
}

/** Templates are optional beside resources: an upstream that does not know the method has none. */
async function optionalList(listing: Promise<unknown[]>): Promise<unknown[]> {
  try {
    return await listing;
  } catch (error) {
    if (
      error instanceof UpstreamRpcError &&
      error.code === (ProtocolErrorCode.MethodNotFound as number)
    )
      return [];
    throw error;
  }
}
