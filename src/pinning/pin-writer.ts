import { type EntityManager } from 'typeorm';
import { STATEMENT_ROWS } from '../common/statement-rows';
import { type PinWrite } from '../pin-state/pin-columns';
import { type PinnedDigest } from './pin-plan';

/** The tables whose definitions are pinned, and the upstream key of each. */
export const PINNED_TABLES = {
  tool: 'original_name',
  prompt: 'original_name',
  resource_template: 'uri_template',
} as const;
export type PinnedTable = keyof typeof PINNED_TABLES;

/** A gateway's stored entries of one kind, with their pins, keyed by upstream name or URI. */
export function storedPins(
  em: EntityManager,
  table: PinnedTable,
  gatewayId: string,
): Promise<PinnedDigest[]> {
  return em.query(
    `SELECT id, ${PINNED_TABLES[table]} AS key, content_hash AS "contentHash",
            pinned_hash AS "pinnedHash", rejected_hash AS "rejectedHash", quarantine
     FROM "${table}" WHERE gateway_id = $1`,
    [gatewayId],
  );
}

/**
 * Writes the pins a sync or rescan decided for stored entries, found by id (`ids`, by key). An
 * entry the sync inserted got its pin with its row (insertedPin), and a key without a stored entry
 * is skipped. By id, each row is found through the primary key: matched by gateway and key, the
 * embedded database (which keeps no statistics) read all of a gateway's rows for every chunk.
 */
export async function writePins(
  em: EntityManager,
  table: PinnedTable,
  writes: readonly PinWrite[],
  ids: ReadonlyMap<string, string>,
): Promise<void> {
  const stored = writes.flatMap((write) => {
    const id = ids.get(write.key);
    return id === undefined ? [] : [{ id, write }];
  });
  for (let start = 0; start < stored.length; start += STATEMENT_ROWS) {
    const rows = stored.slice(start, start + STATEMENT_ROWS).map(({ id, write }) => ({
      id,
      pinned_hash: write.pinnedHash,
      rejected_hash: write.rejectedHash,
      quarantine: write.quarantine,
      findings: write.findings ?? null,
      scanned: write.findings !== undefined,
      enabled: write.enabled ?? null,
    }));
    await em.query(
      `UPDATE "${table}" AS entry SET
         "pinned_hash" = incoming.pinned_hash, "rejected_hash" = incoming.rejected_hash,
         "quarantine" = incoming.quarantine,
         "findings" = CASE WHEN incoming.scanned THEN incoming.findings ELSE entry.findings END,
         "enabled" = coalesce(incoming.enabled, entry.enabled)
       FROM jsonb_to_recordset($1::jsonb) AS incoming(
         id uuid, pinned_hash varchar, rejected_hash varchar, quarantine jsonb, findings jsonb,
         scanned boolean, enabled boolean)
       WHERE entry.id = incoming.id`,
      [JSON.stringify(rows)],
    );
  }
}

/** The ids of stored entries by key, for writePins. */
export function idsByKey(entries: readonly { id: string; key: string }[]): Map<string, string> {
  return new Map(entries.map((entry) => [entry.key, entry.id]));
}
