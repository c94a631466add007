import { type EntityManager } from 'typeorm';
import { type AuditTrail } from '../audit/audit-trail.service';
import { outsideRequest } from '../observability/request-context';
import { type SyncListReport, type SyncReport } from '../sync-report/sync-report';
import { type ToolNameQuery } from '../virtual-names/tool-name.query';
import { PINNED_KINDS, type PinnedKindSpec } from './pinned-kinds';
import { PINNED_TABLES } from './pin-writer';

/** The gateway a sync ran for, as its audit entries name it. */
export interface SyncedGateway {
  id: string;
  slug: string;
  teamId: string | null;
}

/**
 * Audits what a sync held back from clients and what it let through again, one entry each, under
 * the gateway's team so that the team's operators read them. Entries a sync could not store
 * (conflicts) were never held, and are left out. Recorded outside the request that may have
 * started the sync, which stays in the trail as itself.
 */
export async function recordSyncPins(
  trail: AuditTrail,
  em: EntityManager,
  names: ToolNameQuery,
  gateway: SyncedGateway,
  report: SyncReport,
): Promise<void> {
  const lists: [PinnedKindSpec, SyncListReport | undefined][] = [
    [PINNED_KINDS.tool, report],
    [PINNED_KINDS.prompt, report.prompts],
    [PINNED_KINDS['resource-template'], report.resourceTemplates],
  ];
  for (const [spec, section] of lists) {
    const held = section?.quarantined ?? [];
    const released = section?.released ?? [];
    if (held.length + released.length === 0) continue;
    const keyColumn = PINNED_TABLES[spec.table];
    const rows = await em.query<
      { key: string; reason: string | null; renamedFrom: string | null }[]
    >(
      `SELECT ${keyColumn} AS key, quarantine->>'reason' AS reason,
              quarantine->>'renamedFrom' AS "renamedFrom"
       FROM "${spec.table}" WHERE gateway_id = $1 AND ${keyColumn} = ANY($2)`,
      [gateway.id, [...held, ...released]],
    );
    const reasons = new Map(rows.map((row) => [row.key, row.reason]));
    const renamed = new Map(rows.map((row) => [row.key, row.renamedFrom]));
    const record = (key: string, action: string, detail: string) =>
      outsideRequest(() =>
        trail.record({
          kind: 'change',
          action,
          outcome: 'ok',
          teamIds: gateway.teamId === null ? [] : [gateway.teamId],
          gateway: gateway.slug,
          target: spec.nameFor(names, gateway.slug, key).slice(0, 1024),
          detail: `${spec.noun}: ${detail}`.slice(0, 500),
        }),
      );
    for (const key of held) {
      const reason = reasons.get(key);
      const from = renamed.get(key);
      if (reason)
        record(
          key,
          'sync.quarantine',
          from
            ? `held back (renamed: looks like ${spec.nameFor(names, gateway.slug, from)}) until approved`
            : `held back (${reason}) until approved`,
        );
    }
    for (const key of released) if (reasons.has(key)) record(key, 'sync.release', 'served again');
  }
}
