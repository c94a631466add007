import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

/** The lists a server says changed with its `notifications/<list>/list_changed`. */
export const UPSTREAM_LISTS = ['tools', 'resources', 'prompts'] as const;
export type UpstreamList = (typeof UPSTREAM_LISTS)[number];

/**
 * What replicas tell each other. In embedded mode there is one process and the bus is in-process;
 * with PostgreSQL it crosses processes (LISTEN/NOTIFY, or Redis pub/sub when REDIS_URL is set).
 * Every event reaches every replica, the publishing one included.
 */
export type PorticoEvent =
  /**
   * Tools of these gateways, or the gateways themselves, changed. No ids: anything may have
   * changed (see RESYNC).
   */
  | { type: 'catalog.changed'; gatewayIds: string[] }
  /**
   * The upstream of this gateway said these lists of its changed (`list_changed`), and the sync
   * that followed has run: whoever follows a list that holds any of its members hears of it,
   * whether or not the sync changed what Portico lists.
   */
  | { type: 'lists.announced'; gatewayId: string; lists: UpstreamList[] }
  /** Virtual servers changed (membership, settings, deletion). No ids: any may have. */
  | { type: 'servers.changed'; serverIds: string[] }
  /**
   * Who may do what changed: these users (role, teams, disabled or deleted), these API tokens
   * (revoked) or these OAuth grants (revoked). Every replica drops them from its caches at once.
   */
  | { type: 'identity.changed'; userIds: string[]; tokenIds: string[]; grantIds: string[] }
  /**
   * The tool-search promotions of this owner (`ownerKey`: a 2025 session, or a principal in its
   * scope) changed: every replica drops its cached copy.
   */
  | { type: 'mcp.promotions.changed'; owner: string }
  /**
   * A person's approval was remembered (`granted`), or a remembered one revoked (none: every
   * replica reads the valid ones again).
   */
  | {
      type: 'approvals.changed';
      granted?: {
        subject: string;
        toolId: string;
        policyId: string;
        policyRevision: string;
        expiresAt: number;
      };
    }
  /**
   * `owner` (a user's id, or the gateway's shared account) connected their account at the OAuth
   * upstream of this gateway: calls that asked them to connect may go on.
   */
  | { type: 'oauth.connected'; gatewayId: string; owner: string }
  /** A session's stored state changed (log level, subscriptions) or it ended. */
  | { type: 'mcp.session.changed'; sessionId: string; ended: boolean }
  /**
   * A message for the client on one of the session's streams, wherever that is open: the session's
   * own stream (GET, or the older transport's SSE stream), or a request's stream that the client
   * resumed elsewhere (`final` ends it). `eventId` is its id when the stream keeps them.
   */
  | {
      type: 'mcp.to-client';
      sessionId: string;
      streamId: string;
      eventId?: string;
      final?: boolean;
      message: JSONRPCMessage;
    }
  /**
   * A message from the client that the receiving replica could not place: a response to a request
   * another replica sent, or a cancellation of a request another replica is serving.
   */
  | { type: 'mcp.from-client'; sessionId: string; message: JSONRPCMessage }
  /**
   * A 2026-07-28 client's retry of a call parked on another replica (a 2025 upstream asked for
   * input during it): the answers for the parked call, or its cancellation.
   */
  | {
      type: 'mcp.parked.to-owner';
      /** The replica that holds the call. */
      replica: string;
      parkedId: string;
      /** Names this retry in the replies. */
      ticket: string;
      /** The replica the retry came to. */
      from: string;
      requestId: RequestId;
      /** Absent: the client cancelled the retry. */
      inputResponses?: Record<string, unknown>;
    }
  /**
   * The owner's word on a retry: taken (no message), a notification about the call, or (final)
   * its answer: the result, an error, or the next round.
   */
  | {
      type: 'mcp.parked.to-retry';
      replica: string;
      ticket: string;
      message?: JSONRPCMessage;
      final?: boolean;
    };

/**
 * Delivered locally, never published, each time a bus has (re)subscribed: events sent while it was
 * not listening are lost, so every cache drops everything it holds. It is a catalog change with no
 * ids, which the catalogue caches already answer by dropping all they hold.
 */
export const RESYNC: PorticoEvent = { type: 'catalog.changed', gatewayIds: [] };

/** Whether the event may stand for changes this replica missed, so that every cache must go. */
export function isResync(event: PorticoEvent): boolean {
  return event.type === 'catalog.changed' && event.gatewayIds.length === 0;
}

export type EventHandler = (event: PorticoEvent) => void;

export abstract class EventBus {
  abstract publish(event: PorticoEvent): Promise<void>;
  abstract subscribe(handler: EventHandler): () => void;
}
