import { hash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { type DiscoverResult } from '@modelcontextprotocol/client';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { GatewayRecords } from '../gateway-records';
import { ToolHeaderParams } from '../modern/mcp-param-headers';
import { type EraVerdict, fresh, pinnedVerdict, sessionEraVerdict } from './protocol-era';
import { type UpstreamTarget } from '../upstream-target';

interface Known {
  /** The endpoint the entry is about: a gateway pointed elsewhere starts afresh. */
  key: string;
  verdict: EraVerdict | null;
  /** A call suggested the era changed: verdicts checked before this no longer hold. */
  doubtedAt: number;
  /** Bumped by each doubt, so that an open can tell that its verdict was doubted meanwhile. */
  generation: number;
  /** What `server/discover` said, per authorization context: never shared between them. */
  discovered: Map<string, { result: DiscoverResult; at: Date }>;
  headerParams: ToolHeaderParams;
  /** Whether a modern upstream also opens 2025 sessions; null until one was tried. */
  acceptsSessions: boolean | null;
}

/**
 * Which era of MCP each upstream speaks, on this replica: the verdict of the last probe, kept
 * for UPSTREAM_ERA_TTL_SECONDS (a stale "2025" never corrects itself, since upgraded servers still
 * answer `initialize`), and stored on the gateway so that other replicas and restarts need no
 * probe. A call that fails as if the era changed doubts it, and the next open probes again.
 */
@Injectable()
export class UpstreamEras {
  private readonly logger = new Logger(UpstreamEras.name);
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly config: UpstreamSettings,
    private readonly records: GatewayRecords,
  ) {}

  private get ttlMs(): number {
    return this.config.upstreamEraTtlSeconds * 1000;
  }

  /** The verdict that holds now (a pinned upstream's pin), or null when it must be probed. */
  verdict(target: UpstreamTarget): EraVerdict | null {
    // HTTP+SSE is a 2025 transport: nothing to probe.
    if (target.endpoint.transport === 'sse') return sessionEraVerdict();
    const pinned = pinnedVerdict(target.endpoint.eraPin);
    if (pinned) return pinned;
    const known = this.entry(target);
    if (known.verdict && fresh(known.verdict.checkedAt, this.ttlMs)) return known.verdict;
    const stored = target.storedEra;
    if (
      stored &&
      fresh(stored.checkedAt, this.ttlMs) &&
      stored.checkedAt.getTime() > known.doubtedAt
    ) {
      known.verdict = stored;
      return stored;
    }
    return null;
  }

  generation(target: UpstreamTarget): number {
    return this.entry(target).generation;
  }

  /** A probe's verdict: held here, and stored on the gateway for the other replicas. */
  async remember(target: UpstreamTarget, verdict: EraVerdict): Promise<void> {
    this.entry(target).verdict = verdict;
    try {
      await this.records.recordEra(target, verdict);
    } catch (error) {
      // Kept in memory all the same; the next probe stores it again.
      this.logger.warn(`Could not store the era of gateway ${target.slug}: ${String(error)}`);
    }
  }

  /** The era may have changed (an upgrade, a downgrade): the next open probes again. */
  doubt(target: UpstreamTarget, reason: string): void {
    const known = this.entry(target);
    known.verdict = null;
    known.doubtedAt = Date.now();
    known.generation += 1;
    known.discovered.clear();
    known.acceptsSessions = null;
    this.logger.log(`The era of upstream '${target.slug}' is probed again: ${reason}`);
  }

  /** What discover said to this authorization context, while it holds. */
  discovered(target: UpstreamTarget, context: string): DiscoverResult | null {
    const entry = this.entry(target).discovered.get(context);
    return entry && fresh(entry.at, this.ttlMs) ? entry.result : null;
  }

  rememberDiscovered(target: UpstreamTarget, context: string, result: DiscoverResult): void {
    this.entry(target).discovered.set(context, { result, at: new Date() });
  }

  headerParams(target: UpstreamTarget): ToolHeaderParams {
    return this.entry(target).headerParams;
  }

  /** Whether this modern upstream also opened a 2025 session; null until one was tried. */
  acceptsSessions(target: UpstreamTarget): boolean | null {
    return this.entry(target).acceptsSessions;
  }

  rememberAcceptsSessions(target: UpstreamTarget, accepts: boolean): void {
    this.entry(target).acceptsSessions = accepts;
  }

  forget(gatewayId: string): void {
    this.known.delete(gatewayId);
  }

  private entry(target: UpstreamTarget): Known {
    const key = hash('sha256', JSON.stringify(target.endpoint), 'hex');
    const existing = this.known.get(target.gatewayId);
    if (existing?.key === key) return existing;
    const fresh: Known = {
      key,
      verdict: null,
      // What was stored was probed for the endpoint as it was; a new one is probed afresh.
      doubtedAt: existing ? Date.now() : 0,
      generation: (existing?.generation ?? 0) + 1,
      discovered: new Map(),
      headerParams: new ToolHeaderParams(),
      acceptsSessions: null,
    };
    this.known.set(target.gatewayId, fresh);
    return fresh;
  }
}
