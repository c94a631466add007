import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { uniqueViolation } from '../common/unique-violation';
import { DatabaseSettings } from '../config/slices/database.settings';
import { Gateway } from '../gateways/gateway.entity';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { VIRTUAL_NAME_INDEX } from '../virtual-names/tool-name.query';
import { pinSettingsOf } from '../pin-state/definition-pin';
import { DefinitionScans } from '../pinning/definition-scans';
import { boundPinMemory, pinMemoryOf, rememberPins } from '../pinning/pin-memory';
import { type PinnedKind, pinsChanged, planPins } from '../pinning/pin-plan';
import { idsByKey, storedPins, writePins } from '../pinning/pin-writer';
import { PINNED_KINDS } from '../pinning/pinned-kinds';
import { toolRenameView } from '../pinning/rename-view';
import { type ToolDefinition } from '../tools/tool-definition';
import { contentHash } from '../tools/tool-hash';
import { ConsolidatedToolsQuery } from '../consolidated-tools/consolidated-tools.query';
import { SkillsApplier } from '../skills/skills.applier';
import { ToolWriter } from '../tools/tool.writer';
import { upstreamFingerprint } from '../upstream/upstream-target';
import { boundedReport, type SyncReport } from '../sync-report/sync-report';
import { type UpstreamCatalogue } from './catalogue.reader';
import { diffToolLists, syncReportOf } from './list.differ';
import { MemberListsApplier } from './member-lists.applier';

/** The advisory-lock key of a gateway's syncs, hashed to a bigint by PostgreSQL. */
export function syncLockName(gatewayId: string): string {
  return `portico.sync:${gatewayId}`;
}

export interface AppliedSync {
  /** The whole report, and the report as stored and returned (boundedReport). */
  report: SyncReport;
  stored: SyncReport;
  /** Whether any tool was added, updated or removed. */
  changed: boolean;
}

const ATTEMPTS = 2;

/**
 * Writes one upstream tool list into the catalogue: the whole diff in one transaction, computed
 * under the gateway's lock from what is stored at that moment, so that two syncs of one gateway
 * can never both insert the same tools.
 */
@Injectable()
export class SyncApplier {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writer: ToolWriter,
    private readonly lists: MemberListsApplier,
    private readonly config: DatabaseSettings,
    private readonly scans: DefinitionScans,
    private readonly skills: SkillsApplier,
    private readonly consolidated: ConsolidatedToolsQuery,
  ) {}

  /** `readFrom` is the upstream fingerprint of the gateway as it was when the list was read. */
  async apply(
    gatewayId: string,
    readFrom: string,
    upstream: UpstreamCatalogue,
  ): Promise<AppliedSync> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction((em) =>
          this.applyIn(em, gatewayId, readFrom, upstream),
        );
      } catch (error) {
        if (attempt >= ATTEMPTS || !lostRaceWithOtherGateway(error)) throw error;
      }
    }
  }

  private async applyIn(
    em: EntityManager,
    gatewayId: string,
    readFrom: string,
    upstream: UpstreamCatalogue,
  ): Promise<AppliedSync> {
    await this.lock(em, gatewayId);
    // The row lock orders this against a concurrent rename, which moves every tool to a new slug.
    const gateway = await em
      .getRepository(Gateway)
      .findOne({ where: { id: gatewayId }, lock: { mode: 'pessimistic_write' } });
    if (!gateway) {
      throw new GatewayException(GatewayErrorCode.NotFound, `Gateway ${gatewayId} does not exist.`);
    }
    // An edit may have pointed the gateway elsewhere while the list was read (in any replica);
    // that edit syncs the new upstream itself, and this old list must not land after it.
    if (upstreamFingerprint(gateway) !== readFrom) {
      throw new GatewayException(
        GatewayErrorCode.SyncSuperseded,
        `Gateway '${gateway.name}' was pointed at another upstream or given other credentials during the sync; sync it again.`,
      );
    }
    const stored = await storedPins(em, 'tool', gatewayId);
    const scansFor = this.scans.forGateway(em, gateway, upstreamNames(upstream.tools));
    const toolDiff = await diffToolLists(
      stored.map(({ id, key, contentHash }) => ({ id, originalName: key, contentHash })),
      upstream.tools,
    );
    const scans = await scansFor(toolDiff);
    const kind: PinnedKind<ToolDefinition> = {
      keyOf: (tool) => tool.name,
      hashOf: contentHash,
      scan: (tool) => scans.tool(tool),
      view: toolRenameView,
    };
    const now = new Date();
    const memory = await pinMemoryOf(em, PINNED_KINDS.tool, gatewayId, toolDiff, kind);
    const { diff, ...pins } = await planPins(
      toolDiff,
      stored,
      kind,
      pinSettingsOf(gateway),
      now,
      memory,
    );
    await this.writer.remove(
      em,
      diff.removed.map((tool) => tool.id),
    );
    await this.writer.updateMany(em, diff.updated);
    const { inserted, conflicts } = await this.writer.insert(em, gateway, diff.added, pins.writes);
    await writePins(em, 'tool', pins.writes, idsByKey(stored));
    await rememberPins(em, PINNED_KINDS.tool, gatewayId, pins, now);
    const others = await this.lists.apply(em, gateway, upstream, scansFor, now);
    const skills = await this.skills.apply(em, gateway, upstream.skills, now);
    if (pins.tombstones.length + others.tombstones > 0) await boundPinMemory(em, gatewayId);
    const drift = await this.consolidated.driftOf(em, gatewayId);
    const report = {
      ...(drift.length > 0 ? { consolidationDrift: drift } : {}),
      ...syncReportOf(
        diff,
        (tool) => tool.name,
        inserted.map((tool) => tool.originalName),
        conflicts,
        pins,
      ),
      ...others.report,
      ...(skills.report ? { skills: skills.report } : {}),
    };
    const bounded = boundedReport(report);
    await em.getRepository(Gateway).update(gatewayId, {
      status: 'healthy',
      lastError: null,
      lastSeenAt: now,
      lastSyncAt: now,
      lastSyncReport: bounded,
      ...KEEP_UPDATED_AT,
    });
    return {
      report,
      stored: bounded,
      changed:
        inserted.length + diff.updated.length + diff.removed.length > 0 ||
        pinsChanged(pins) ||
        others.changed ||
        skills.changed,
    };
  }

  /**
   * Single flight across replicas. The embedded database is one process whose transactions are
   * serialised anyway, and whose advisory locks do not exclude one connection from another; the
   * in-process queue of SyncService covers it.
   */
  private async lock(em: EntityManager, gatewayId: string): Promise<void> {
    if (this.config.database.mode !== 'postgres') return;
    const [row] = await em.query<{ locked: boolean }[]>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
      [syncLockName(gatewayId)],
    );
    if (row?.locked !== true) {
      throw new GatewayException(
        GatewayErrorCode.SyncInProgress,
        `Gateway ${gatewayId} is being synced by another replica; try again in a moment.`,
      );
    }
  }
}

/**
 * Two gateways' syncs inserting tools whose virtual names clash race on the unique index (or
 * deadlock on it); the loser retries and then sees the winner's tool as a conflict.
 */
function lostRaceWithOtherGateway(error: unknown): boolean {
  if (uniqueViolation(error) === VIRTUAL_NAME_INDEX) return true;
  return (
    error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '40P01'
  );
}

/** The names an upstream lists, as far as they are strings (the rest are refused in the diff). */
function upstreamNames(tools: readonly unknown[]): string[] {
  return tools.flatMap((tool) => {
    const name = (tool as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? [name] : [];
  });
}
