import { Injectable, Logger } from '@nestjs/common';
import { type EntityManager, type ObjectLiteral } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { canonicalJson } from '../common/canonical-json';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';
import { deleteRows, insertRows, updateRows } from '../common/statement-rows';
import { type Gateway } from '../gateways/gateway.entity';
import { type SyncConflict, type SyncListReport } from '../sync-report/sync-report';
import { type PinningMode } from '../pin-state/definition-pin';
import { admitSkill, manifestHash, type UpstreamSkill } from './skill-manifest';
import { type UpstreamSkillListing } from './skill-listing';
import { Skill } from './skill.entity';
import { isHeld } from './skills.service';

/** What a sync did to a gateway's skills; its report is absent when there were none to list. */
export interface SkillsApplied {
  changed: boolean;
  report?: SyncListReport;
}

/**
 * The pinned hash of a skill after a sync: with pinning off every manifest is approved as it
 * comes; on first sight a new skill is approved and a changed one keeps its old approval (so it
 * is held); under review nothing is approved without an operator.
 */
export function pinAfterSync(
  mode: PinningMode,
  stored: { pinnedHash: string | null } | undefined,
  hash: string,
): string | null {
  if (mode === 'off') return hash;
  if (!stored) return mode === 'first-sight' ? hash : null;
  return stored.pinnedHash;
}

/**
 * Writes an upstream's skills into the catalogue, inside the sync's transaction: entries are
 * admitted one by one (a bad one is refused and reported, the rest stored), keyed by their URI.
 * `listing` absent: the upstream does not declare the extension (any more), and its skills go.
 * Only a new or changed skill is written; the listing's cache hint, which every read renews, is
 * one statement for them all and leaves `updatedAt` alone (it dates the skill's last change).
 * The report's lists hold the upstream's skill URIs; `quarantined` the skills this sync held
 * (new under review, or a changed manifest), `released` those it served again (pinning off).
 */
@Injectable()
export class SkillsApplier {
  private readonly logger = new Logger(SkillsApplier.name);

  async apply(
    em: EntityManager,
    gateway: Gateway,
    listing: UpstreamSkillListing | undefined,
    now: Date,
  ): Promise<SkillsApplied> {
    const repository = em.getRepository(Skill);
    const stored = new Map(
      (await repository.findBy({ gatewayId: gateway.id })).map((skill) => [skill.uri, skill]),
    );
    const conflicts: SyncConflict[] = [];
    const listed = new Map<string, UpstreamSkill>();
    for (const [index, entry] of (listing?.entries ?? []).entries()) {
      const admitted = admitSkill(entry);
      if ('reason' in admitted)
        conflicts.push({ name: admitted.uri ?? `entry ${index + 1}`, reason: admitted.reason });
      else if (listed.has(admitted.uri))
        conflicts.push({ name: admitted.uri, reason: 'listed twice' });
      else listed.set(admitted.uri, admitted);
    }
    if (conflicts.length > 0)
      this.logger.warn(
        `Gateway '${gateway.name}' lists ${conflicts.length} skill(s) Portico refused: ${conflicts
          .slice(0, 5)
          .map(({ name, reason }) => `${name}: ${reason}`)
          .join('; ')}`,
      );
    const report: SyncListReport = { added: [], updated: [], removed: [], unchanged: 0, conflicts };
    const quarantined: string[] = [];
    const released: string[] = [];
    const gone = [...stored.values()].filter((skill) => !listed.has(skill.uri));
    if (gone.length > 0) {
      await deleteRows(
        em,
        Skill,
        gone.map((skill) => skill.id),
      );
      report.removed = gone.map((skill) => skill.uri);
    }
    const hint = {
      ttlMs: boundedTtl(listing?.hint.ttlMs ?? null),
      cacheScope: listing?.hint.cacheScope ?? null,
      readAt: listing?.hint.readAt ?? now,
    };
    if (stored.size > gone.length)
      await repository.update({ gatewayId: gateway.id }, { ...hint, ...KEEP_UPDATED_AT });
    const inserts: QueryDeepPartialEntity<Skill>[] = [];
    const updates: ObjectLiteral[] = [];
    for (const skill of listed.values()) {
      const previous = stored.get(skill.uri);
      const hash = manifestHash(skill);
      const pinnedHash = pinAfterSync(gateway.pinning, previous, hash);
      const row = {
        gatewayId: gateway.id,
        gatewaySlug: gateway.slug,
        name: skill.name,
        uri: skill.uri,
        frontmatter: skill.frontmatter,
        resources: skill.resources,
        meta: skill.meta,
        manifestHash: hash,
        pinnedHash,
        pinnedResources:
          pinnedHash === hash ? skill.resources : (previous?.pinnedResources ?? null),
        directoryRead: listing?.directoryRead ?? false,
        ...hint,
      };
      const held = pinnedHash !== hash;
      const wasHeld = previous !== undefined && isHeld(previous);
      if (held && (!wasHeld || previous.manifestHash !== hash)) quarantined.push(skill.uri);
      if (!held && wasHeld) released.push(skill.uri);
      if (!previous) {
        inserts.push(row as QueryDeepPartialEntity<Skill>);
        report.added.push(skill.uri);
        continue;
      }
      const changed =
        previous.manifestHash !== hash ||
        previous.pinnedHash !== pinnedHash ||
        previous.gatewaySlug !== gateway.slug ||
        previous.directoryRead !== row.directoryRead;
      if (changed) report.updated.push(skill.uri);
      else report.unchanged++;
      // The entry's _meta is stored and served, though no part of the manifest a pin approves.
      if (changed || canonicalJson(previous.meta) !== canonicalJson(row.meta))
        updates.push({ ...row, id: previous.id });
    }
    await insertRows(em, Skill, inserts);
    await updateRows(em, Skill, updates);
    if (quarantined.length > 0) report.quarantined = quarantined;
    if (released.length > 0) report.released = released;
    return {
      changed: report.added.length + report.updated.length + report.removed.length > 0,
      ...(listing || stored.size > 0 ? { report } : {}),
    };
  }
}

/** An upstream TTL as the integer column holds it. */
function boundedTtl(ttlMs: number | null): number | null {
  return ttlMs === null ? null : Math.min(Math.floor(ttlMs), 2 ** 31 - 1);
}
