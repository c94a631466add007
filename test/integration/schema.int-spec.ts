import { schemaDrift } from '../../src/database/schema-drift';
import {
  VIRTUAL_NAME_INDEX,
  VIRTUAL_NAME_TRGM_INDEX,
} from '../../src/virtual-names/tool-name.query';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

describe('schema', () => {
  let db: TestDataSource;

  beforeAll(async () => {
    db = await openTestDataSource();
  });

  afterAll(async () => {
    await db.close();
  });

  it('leaves nothing for migration:generate after the migrations ran', async () => {
    expect(await schemaDrift(db.dataSource)).toEqual({ up: [], down: [] });
  });

  it('has no pending migrations', async () => {
    expect(await db.dataSource.showMigrations()).toBe(false);
  });

  it('uses gen_random_uuid() for ids', async () => {
    const [row] = await db.dataSource.query<{ column_default: string }[]>(
      `SELECT column_default FROM information_schema.columns WHERE table_name = 'tool' AND column_name = 'id'`,
    );
    expect(row!.column_default).toBe('gen_random_uuid()');
  });

  it('keeps time columns as timestamptz', async () => {
    const rows = await db.dataSource.query<{ data_type: string }[]>(
      `SELECT DISTINCT data_type FROM information_schema.columns
       WHERE table_schema = current_schema() AND column_name LIKE '%\\_at' ESCAPE '\\' AND table_name <> 'migrations'`,
    );
    expect(rows.map((row) => row.data_type)).toEqual(['timestamp with time zone']);
  });

  it('refits the virtual-name index to another separator', async () => {
    const other = await openTestDataSource({ GATEWAY_TOOL_NAME_SEPARATOR: '__' });
    try {
      const rows = await other.dataSource.query<{ indexname: string; indexdef: string }[]>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY($1) ORDER BY indexname`,
        [[VIRTUAL_NAME_INDEX, VIRTUAL_NAME_TRGM_INDEX]],
      );
      expect(rows.map((row) => row.indexname)).toEqual([
        VIRTUAL_NAME_TRGM_INDEX,
        VIRTUAL_NAME_INDEX,
      ]);
      for (const row of rows) expect(row.indexdef).toContain(`'__'::text`);
      expect(rows[1]!.indexdef).toMatch(/^CREATE UNIQUE INDEX/);
      expect(rows[0]!.indexdef).toMatch(/USING gin .*gin_trgm_ops/);
      expect(await schemaDrift(other.dataSource)).toEqual({ up: [], down: [] });
    } finally {
      await other.close();
    }
  });
});
