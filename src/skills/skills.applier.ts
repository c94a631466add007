import { Injectable, Logger } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { canonicalJson } from '../common/canonical-json';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';
import { type Gateway } from '../gateways/gateway.entity';
import { type PinningMode } from '../pin-state/definition-pin';
import { admitSkill, manifestHash, type UpstreamSkill } from './skill-manifest';
import { type UpstreamSkillListing } from './skill-listing';
import { Skill } from './skill.entity';

/** What a sync did to a gateway's skills. */
export interface SkillsApplied {
  changed: boolean;
  added: number;
  updated: number;
  removed: number;
  /** Skills whose manifest is not the approved one: not served until approved. */
  held: number;
  /** Entries the upstream listed that were refused, and why. */
  refused: string[];
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
 * admitted one by one (a bad one is refused and said, the rest stored), keyed by their URI.
 * `listing` absent: the upstream does not declare the extension (any more), and its skills go.
 * Only a new or changed skill is written; the listing's cache hint, which every read renews, is
 * one statement for them all and leaves `updatedAt` alone (it dates the skill's last change).
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
    const refused: string[] = [];
    const listed = new Map<string, UpstreamSkill>();
    for (const entry of listing?.entries ?? []) {
      const admitted = admitSkill(entry);
      if (typeof admitted === 'string') refused.push(admitted);
      else if (listed.has(admitted.uri)) refused.push(`${admitted.uri} is listed twice`);
      else listed.set(admitted.uri, admitted);
    }
    if (refused.length > 0)
      this.logger.warn(
        `Gateway '${gateway.name}' lists ${refused.length} skill(s) Portico refused: ${refused.slice(0, 5).join('; ')}`,
      );
    const applied: SkillsApplied = {
      changed: false,
      added: 0,
      updated: 0,
      removed: 0,
      held: 0,
      refused,
    };
    const gone = [...stored.values()].filter((skill) => !listed.has(skill.uri));
    if (gone.length > 0) {
      await repository.delete(gone.map((skill) => skill.id));
      applied.removed = gone.length;
    }
    const hint = {
      ttlMs: boundedTtl(listing?.hint.ttlMs ?? null),
      cacheScope: listing?.hint.cacheScope ?? null,
      readAt: listing?.hint.readAt ?? now,
    };
    if (stored.size > gone.length)
      await repository.update({ gatewayId: gateway.id }, { ...hint, ...KEEP_UPDATED_AT });
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
      if (pinnedHash !== hash) applied.held++;
      if (!previous) {
        await repository.save(repository.create(row));
        applied.added++;
        continue;
      }
      const changed =
        previous.manifestHash !== hash ||
        previous.pinnedHash !== pinnedHash ||
        previous.gatewaySlug !== gateway.slug ||
        previous.directoryRead !== row.directoryRead;
      if (changed) applied.updated++;
      // The entry's _meta is stored and served, though no part of the manifest a pin approves.
      if (changed || canonicalJson(previous.meta) !== canonicalJson(row.meta))
        await repository.update(previous.id, row as QueryDeepPartialEntity<Skill>);
    }
    applied.changed = applied.added + applied.updated + applied.removed > 0;
    return applied;
  }
}

/** An upstream TTL as the integer column holds it. */
function boundedTtl(ttlMs: number | null): number | null {
  return ttlMs === null ? null : Math.min(Math.floor(ttlMs), 2 ** 31 - 1);
}
