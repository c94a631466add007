import { type EntityManager } from 'typeorm';
import { Pacer } from '../common/pacer';
import { STATEMENT_ROWS } from '../common/statement-rows';
import { type ListDiff } from '../sync-report/sync-report';
import { ForgottenKeys } from './forgotten-keys';
import { type LeavingEntry, type PinMemory, type PinnedKind } from './pin-plan';
import { type Tombstone, TOMBSTONES_PER_GATEWAY, tombstonesToEvict } from './pin-tombstone';
import { type PinnedKindSpec } from './pinned-kinds';
import { PINNED_TABLES } from './pin-writer';

/** The part of a tombstone's description a rename is compared on. */
const TEXT_COMPARED = 4096;

/**
 * What a sync remembers for one list of a gateway, read inside its transaction: the removed
 * entries that leave tombstones, and, when the list brings new keys, their tombstones, those of
 * entries shaped like them, and the gateway's forgotten keys. A list that adds and removes
 * nothing costs nothing.
 */
export async function pinMemoryOf<T>(
  em: EntityManager,
  spec: PinnedKindSpec,
  gatewayId: string,
  diff: ListDiff<T>,
  kind: Pick<PinnedKind<T>, 'keyOf' | 'view'>,
): Promise<PinMemory> {
  const leaving = new Map<string, LeavingEntry>();
  const removed = diff.removed.map((entry) => entry.id);
  for (let start = 0; start < removed.length; start += STATEMENT_ROWS) {
    const rows = await em
      .getRepository(spec.entity)
      .createQueryBuilder('entry')
      .where('entry.id = ANY(:ids)', { ids: removed.slice(start, start + STATEMENT_ROWS) })
      // leavesTombstone (pin-tombstone.ts), in SQL: only those rows are read.
      .andWhere(
        '(entry.pinned_hash IS NOT NULL OR entry.rejected_hash IS NOT NULL OR NOT entry.enabled)',
      )
      .getMany();
    for (const row of rows)
      leaving.set(row.id, { definition: spec.definitionOf(row), enabled: row.enabled });
  }
  if (diff.added.length === 0) return { tombstones: [], forgotten: () => false, leaving };

  const keys = diff.added.map((definition) => kind.keyOf(definition));
  const pacer = new Pacer();
  const shapes = new Set<string>();
  for (const definition of diff.added) {
    await pacer.turn();
    shapes.add(kind.view(definition).shape);
  }
  // Full definitions only of the keys coming back; of look-alikes, only how they look.
  const tombstones = await em.query<Tombstone[]>(
    `SELECT key, pinned_hash AS "pinnedHash", rejected_hash AS "rejectedHash", enabled,
            content_hash AS "contentHash", shape, body,
            CASE WHEN key = ANY($3) THEN definition END AS definition,
            coalesce(left(definition->>'description', ${TEXT_COMPARED}), '') AS text
     FROM pin_tombstone
     WHERE gateway_id = $1 AND kind = $2 AND (key = ANY($3) OR shape = ANY($4))`,
    [gatewayId, spec.kind, keys, [...shapes]],
  );
  const [row] = await em.query<{ keys: Buffer }[]>(
    'SELECT keys FROM pin_forgotten WHERE gateway_id = $1',
    [gatewayId],
  );
  const forgotten = row ? ForgottenKeys.of(row.keys) : null;
  return {
    tombstones,
    forgotten: (key) => forgotten?.has(spec.kind, key) ?? false,
    leaving,
  };
}

/**
 * Writes a sync's tombstones for one list (a key gone again replaces its older one) and drops
 * those of the keys now stored again, after the sync wrote its entries: an entry the sync could
 * not store (a name clash) keeps its tombstone.
 */
export async function rememberPins(
  em: EntityManager,
  spec: PinnedKindSpec,
  gatewayId: string,
  plan: { tombstones: readonly Tombstone[]; returned: readonly string[] },
  now: Date,
): Promise<void> {
  for (let start = 0; start < plan.tombstones.length; start += STATEMENT_ROWS) {
    const rows = plan.tombstones.slice(start, start + STATEMENT_ROWS).map((tombstone) => ({
      key: tombstone.key,
      pinned_hash: tombstone.pinnedHash,
      rejected_hash: tombstone.rejectedHash,
      enabled: tombstone.enabled,
      content_hash: tombstone.contentHash,
      definition: tombstone.definition,
      shape: tombstone.shape,
      body: tombstone.body,
    }));
    await em.query(
      `INSERT INTO pin_tombstone (gateway_id, kind, key, pinned_hash, rejected_hash, enabled,
                                  content_hash, definition, shape, body, removed_at)
       SELECT $1, $2, key, pinned_hash, rejected_hash, enabled, content_hash, definition, shape,
              body, $4
       FROM jsonb_to_recordset($3::jsonb) AS incoming(
         key text, pinned_hash varchar, rejected_hash varchar, enabled boolean,
         content_hash varchar, definition jsonb, shape varchar, body varchar)
       ON CONFLICT (gateway_id, kind, key) DO UPDATE SET
         pinned_hash = excluded.pinned_hash, rejected_hash = excluded.rejected_hash,
         enabled = excluded.enabled, content_hash = excluded.content_hash,
         definition = excluded.definition, shape = excluded.shape, body = excluded.body,
         removed_at = excluded.removed_at`,
      [gatewayId, spec.kind, JSON.stringify(rows), now.toISOString()],
    );
  }
  if (plan.returned.length === 0) return;
  const column = PINNED_TABLES[spec.table];
  await em.query(
    `DELETE FROM pin_tombstone AS tombstone
     WHERE tombstone.gateway_id = $1 AND tombstone.kind = $2 AND tombstone.key = ANY($3)
       AND EXISTS (SELECT 1 FROM "${spec.table}" AS entry
                   WHERE entry.gateway_id = $1 AND entry.${column} = tombstone.key)`,
    [gatewayId, spec.kind, plan.returned],
  );
}

/**
 * Keeps at most `limit` tombstones for the gateway: the longest gone are dropped, their keys added
 * to the gateway's forgotten keys, so that a return is still held for review. Returns how many
 * were dropped.
 */
export async function boundPinMemory(
  em: EntityManager,
  gatewayId: string,
  limit = TOMBSTONES_PER_GATEWAY,
): Promise<number> {
  const [{ count }] = await em.query<[{ count: number }]>(
    'SELECT count(*)::int AS count FROM pin_tombstone WHERE gateway_id = $1',
    [gatewayId],
  );
  if (count <= limit) return 0;
  const kept = await em.query<{ kind: string; key: string; removedAt: Date }[]>(
    'SELECT kind, key, removed_at AS "removedAt" FROM pin_tombstone WHERE gateway_id = $1',
    [gatewayId],
  );
  const dropped = tombstonesToEvict(kept, limit);
  const [row] = await em.query<{ keys: Buffer }[]>(
    'SELECT keys FROM pin_forgotten WHERE gateway_id = $1',
    [gatewayId],
  );
  const forgotten = ForgottenKeys.of(row?.keys);
  for (const tombstone of dropped) forgotten.add(tombstone.kind, tombstone.key);
  await em.query(
    `INSERT INTO pin_forgotten (gateway_id, keys, dropped) VALUES ($1, $2, $3)
     ON CONFLICT (gateway_id) DO UPDATE SET
       keys = excluded.keys, dropped = pin_forgotten.dropped + excluded.dropped`,
    [gatewayId, forgotten.bytes(), dropped.length],
  );
  for (const kind of new Set(dropped.map((tombstone) => tombstone.kind)))
    await em.query(
      'DELETE FROM pin_tombstone WHERE gateway_id = $1 AND kind = $2 AND key = ANY($3)',
      [
        gatewayId,
        kind,
        dropped.filter((tombstone) => tombstone.kind === kind).map((tombstone) => tombstone.key),
      ],
    );
  return dropped.length;
}
