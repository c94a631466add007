import { type EntityManager } from 'typeorm';
import { z } from 'zod';
import { type Quarantine } from '../../pin-state/definition-pin';
import { type PinnedTable, PINNED_TABLES } from '../../pinning/pin-writer';
import { type FieldChange } from '../config-change';
import { type ApplyContext } from './config-section';

const hash = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe('sha256 of the approved definition, hex (`pin.contentHash` in the API).');

export const gatewayPinsSchema = z
  .object({
    tools: z
      .record(z.string().min(1).max(128), hash)
      .optional()
      .describe('Upstream tool name → pinned hash.'),
    prompts: z
      .record(z.string().min(1).max(128), hash)
      .optional()
      .describe('Upstream prompt name → pinned hash.'),
    resourceTemplates: z
      .record(z.string().min(1).max(4096), hash)
      .optional()
      .describe('Upstream URI template → pinned hash.'),
  })
  .strict()
  .describe(
    'Pinned definitions by upstream name. A stored entry whose definition differs from its pin is quarantined until approved; entries not named are left as they are.',
  );

export type GatewayPins = z.output<typeof gatewayPinsSchema>;

const LISTS: { key: keyof GatewayPins; table: PinnedTable; noun: string }[] = [
  { key: 'tools', table: 'tool', noun: 'tool' },
  { key: 'prompts', table: 'prompt', noun: 'prompt' },
  { key: 'resourceTemplates', table: 'resource_template', noun: 'resource template' },
];

/** Every gateway's pinned hashes by upstream name, sorted, for the exported document. */
export async function exportedPins(em: EntityManager): Promise<Map<string, GatewayPins>> {
  const pins = new Map<string, GatewayPins>();
  for (const { key, table } of LISTS) {
    const rows = await em.query<{ gatewayId: string; name: string; hash: string }[]>(
      `SELECT gateway_id AS "gatewayId", ${PINNED_TABLES[table]} AS name, pinned_hash AS hash
       FROM "${table}" WHERE pinned_hash IS NOT NULL ORDER BY ${PINNED_TABLES[table]} COLLATE "C"`,
    );
    for (const row of rows) {
      const gateway = pins.get(row.gatewayId) ?? {};
      (gateway[key] ??= {})[row.name] = row.hash;
      pins.set(row.gatewayId, gateway);
    }
  }
  return pins;
}

interface StoredPin {
  id: string;
  name: string;
  contentHash: string;
  pinnedHash: string | null;
  quarantine: Quarantine | null;
}

/**
 * Makes the gateway's entries that the document names pinned at the document's hashes. One whose
 * stored definition is not the pinned one is quarantined, its stored definition waiting for
 * review (the next sync follows the upstream, and releases it once the upstream serves the pin).
 * An entry a new or reconnected gateway does not have yet waits for its first sync.
 */
export async function applyPins(
  ctx: ApplyContext,
  gateway: { id: string; name: string; slug: string },
  pins: GatewayPins,
  now: Date,
): Promise<FieldChange[]> {
  const changes: FieldChange[] = [];
  for (const { key, table, noun } of LISTS) {
    const wanted = Object.entries(pins[key] ?? {});
    if (wanted.length === 0) continue;
    const column = PINNED_TABLES[table];
    const rows = await ctx.em.query<StoredPin[]>(
      `SELECT id, ${column} AS name, content_hash AS "contentHash", pinned_hash AS "pinnedHash",
              quarantine
       FROM "${table}" WHERE gateway_id = $1 AND ${column} = ANY($2)`,
      [gateway.id, wanted.map(([name]) => name)],
    );
    const stored = new Map(rows.map((row) => [row.name, row]));
    for (const [name, hash] of wanted) {
      const where = `Gateway '${gateway.name}' pins.${key}.${name}`;
      const entry = stored.get(name);
      if (!entry) {
        if (ctx.pendingSlugs.has(gateway.slug)) {
          ctx.pendingMembers = true;
          ctx.warnings.push(`${where} waits for its gateway's first sync.`);
        } else ctx.warnings.push(`${where} names a ${noun} the gateway does not have; skipped.`);
        continue;
      }
      if (entry.pinnedHash === hash) continue;
      const matches = entry.contentHash === hash;
      const quarantine: Quarantine | null = matches
        ? entry.quarantine?.held
          ? entry.quarantine
          : null
        : { reason: 'changed', since: entry.quarantine?.since ?? now.toISOString() };
      await ctx.em.query(`UPDATE "${table}" SET pinned_hash = $2, quarantine = $3 WHERE id = $1`, [
        entry.id,
        hash,
        quarantine === null ? null : JSON.stringify(quarantine),
      ]);
      if (!matches)
        ctx.warnings.push(
          `${where}: the stored definition is not the pinned one; the ${noun} is quarantined until approved.`,
        );
      changes.push({ field: `pins.${key}.${name}`, from: entry.pinnedHash ?? undefined, to: hash });
      ctx.changed.gatewayIds.add(gateway.id);
    }
  }
  return changes;
}
