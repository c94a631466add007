import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { unit } from './embeddings-client';

/** Rows per statement, well below PostgreSQL's 65,535 bind parameters. */
const CHUNK = 500;

/**
 * Stored provider vectors by model and content hash. The `embedding` column is pgvector's
 * `vector` or `real[]` (see the ToolEmbeddings migration); both travel as text, `[1,2]` or
 * `{1,2}`, so one code path serves either.
 */
@Injectable()
export class ToolVectorStore {
  private columnType?: Promise<'vector' | 'real[]'>;

  constructor(private readonly dataSource: DataSource) {}

  /** The stored vectors of `hashes` under `model`; hashes without one are absent. */
  async load(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (let start = 0; start < hashes.length; start += CHUNK) {
      const rows = await this.dataSource.query<{ hash: string; embedding: string }[]>(
        'SELECT content_hash AS hash, embedding::text AS embedding FROM tool_embedding WHERE model = $1 AND content_hash = ANY($2)',
        [model, hashes.slice(start, start + CHUNK)],
      );
      for (const row of rows) {
        const values = row.embedding
          .replace(/^[[{]|[\]}]$/g, '')
          .split(',')
          .map(Number);
        if (values.length > 0 && values.every(Number.isFinite)) found.set(row.hash, unit(values));
      }
    }
    return found;
  }

  /** Stores vectors; one already stored (by another replica) is kept. */
  async save(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const type = await this.embeddingType();
    const entries = [...vectors];
    for (let start = 0; start < entries.length; start += CHUNK) {
      const chunk = entries.slice(start, start + CHUNK);
      const values: unknown[] = [];
      const rows = chunk.map(([hash, vector], i) => {
        const text = type === 'vector' ? `[${vector.join(',')}]` : `{${vector.join(',')}}`;
        values.push(model, hash, vector.length, text);
        const at = i * 4;
        return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}::${type})`;
      });
      await this.dataSource.query(
        `INSERT INTO tool_embedding (model, content_hash, dimensions, embedding) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`,
        values,
      );
    }
  }

  /** Whether vectors are stored as pgvector's `vector` (or as `real[]`). */
  embeddingType(): Promise<'vector' | 'real[]'> {
    this.columnType ??= this.dataSource
      .query(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'tool_embedding'::regclass AND attname = 'embedding'`,
      )
      .then((rows: { type: string }[]) => (rows[0]?.type === 'vector' ? 'vector' : 'real[]'))
      .catch((error: unknown) => {
        this.columnType = undefined;
        throw error;
      });
    return this.columnType;
  }
}
