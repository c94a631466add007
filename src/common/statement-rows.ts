import { type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/**
 * Rows one statement writes when a sync stores a gateway's lists. On the embedded database a
 * statement runs on the replica's own thread: one that wrote a large gateway's 639 tools or their
 * pins held it for over a second on a slow machine. A chunk of this size holds it for a fraction
 * of that, and other requests run between chunks. It also keeps every statement far below the
 * protocol's 65,535 parameters, past which one that wrote 10,000 prompts failed the whole sync.
 */
export const STATEMENT_ROWS = 100;

/**
 * Sets columns of many rows by id, one statement a chunk, rather than a round trip a row (a sync
 * that changed 10,000 prompts held its transaction for 13 s). Each row holds its id and the same
 * entity properties; their columns and types are the entity's own.
 */
export async function updateRows<T extends ObjectLiteral>(
  em: EntityManager,
  entity: EntityTarget<T>,
  rows: readonly ObjectLiteral[],
): Promise<void> {
  if (rows.length === 0) return;
  const metadata = em.connection.getMetadata(entity);
  const columns = Object.keys(rows[0]!)
    .filter((property) => property !== 'id')
    .map((property) => metadata.findColumnWithPropertyName(property)!);
  const set = columns.map(({ databaseName }) => `"${databaseName}" = incoming."${databaseName}"`);
  const record = columns.map(
    (column) => `"${column.databaseName}" ${em.connection.driver.normalizeType(column)}`,
  );
  for (let start = 0; start < rows.length; start += STATEMENT_ROWS) {
    const chunk = rows.slice(start, start + STATEMENT_ROWS).map((row) => {
      const values: Record<string, unknown> = { id: row.id as unknown };
      for (const column of columns)
        values[column.databaseName] = row[column.propertyName] as unknown;
      return values;
    });
    await em.query(
      `UPDATE "${metadata.tableName}" AS entry SET ${set.join(', ')}, "updated_at" = now()
       FROM jsonb_to_recordset($1::jsonb) AS incoming(id uuid, ${record.join(', ')})
       WHERE entry.id = incoming.id`,
      [JSON.stringify(chunk)],
    );
  }
}

/** Inserts rows, one statement a chunk. */
export async function insertRows<T extends ObjectLiteral>(
  em: EntityManager,
  entity: EntityTarget<T>,
  rows: readonly QueryDeepPartialEntity<T>[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += STATEMENT_ROWS)
    await em
      .createQueryBuilder()
      .insert()
      .into(entity)
      .values(rows.slice(start, start + STATEMENT_ROWS))
      .execute();
}

/** Deletes rows by id, one statement a chunk. */
export async function deleteRows(
  em: EntityManager,
  entity: EntityTarget<ObjectLiteral>,
  ids: readonly string[],
): Promise<void> {
  for (let start = 0; start < ids.length; start += STATEMENT_ROWS)
    await em.delete(entity, ids.slice(start, start + STATEMENT_ROWS));
}
