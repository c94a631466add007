import { type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { type Principal } from '../../auth/principal';
import { ServerSettings } from '../../config/slices/server.settings';
import { McpRefusal } from '../protocol/mcp-errors';

/**
 * The event streams each principal holds open on this replica (GET streams of sessions, HTTP+SSE
 * streams, answers to POSTs that became streams), capped by MCP_MAX_STREAMS_PER_PRINCIPAL so that
 * one client cannot hold every connection. A stream counts from when it is admitted until its
 * response closes, however it closes.
 */
@Injectable()
export class StreamQuota {
  private readonly held = new Map<string, number>();

  constructor(private readonly config: ServerSettings) {}

  /** Counts a new stream of the principal on this response; 429 when it holds its most already. */
  admit(principal: Principal, response: ServerResponse): void {
    const max = this.config.httpLimits.maxStreamsPerPrincipal;
    const held = this.held.get(principal.subject) ?? 0;
    if (max > 0 && held >= max)
      throw new McpRefusal(
        429,
        `Too many open streams: you hold ${held} on this server, and MCP_MAX_STREAMS_PER_PRINCIPAL allows ${max}; close one first`,
      );
    this.count(principal, response);
  }

  /**
   * Counts a stream that may not be refused: a POST's answer that became a stream once its request
   * was under way. It may take the principal past its cap, and holds further streams off until
   * enough have closed.
   */
  count(principal: Principal, response: ServerResponse): void {
    // A response already closed would never say so again: it holds nothing.
    if (response.destroyed) return;
    const { subject } = principal;
    this.held.set(subject, (this.held.get(subject) ?? 0) + 1);
    response.once('close', () => {
      const left = (this.held.get(subject) ?? 1) - 1;
      if (left > 0) this.held.set(subject, left);
      else this.held.delete(subject);
    });
  }

  /** The streams the principal holds open on this replica. */
  openStreams(principal: Pick<Principal, 'subject'>): number {
    return this.held.get(principal.subject) ?? 0;
  }
}
