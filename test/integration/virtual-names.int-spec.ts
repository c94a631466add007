import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { Gateway } from '../../src/gateways/gateway.entity';
import { toolHash } from '../../src/tools/tool-hash';
import { type ToolNameQuery } from '../../src/virtual-names/tool-name.query';
import { ToolWriter } from '../../src/tools/tool.writer';
import { Tool } from '../../src/tools/tool.entity';
import { toolDefinition } from '../support/factories';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

async function gateway(dataSource: DataSource, slug: string): Promise<Gateway> {
  return dataSource
    .getRepository(Gateway)
    .save({ name: slug, slug, url: `http://127.0.0.1/${slug}/${randomUUID()}` });
}

describe('virtual names in the database', () => {
  let db: TestDataSource;
  let writer: ToolWriter;
  let names: ToolNameQuery;

  beforeAll(async () => {
    db = await openTestDataSource();
    names = db.names;
    writer = new ToolWriter(names);
  });

  afterAll(async () => {
    await db.close();
  });

  const insert = (target: Gateway, tools: string[]) =>
    db.dataSource.transaction((em) =>
      writer.insert(
        em,
        target,
        tools.map((name) => toolDefinition(name)),
      ),
    );

  const lookup = (name: string) =>
    names.whereNameIs(db.dataSource.getRepository(Tool).createQueryBuilder('tool'), name).getOne();

  it('gives same-named tools of two gateways distinct names that resolve to each', async () => {
    const first = await gateway(db.dataSource, 'gateway-1');
    const second = await gateway(db.dataSource, 'gateway-2');
    await insert(first, ['get_system_time']);
    await insert(second, ['get_system_time']);
    expect((await lookup('gateway-1-get_system_time'))?.gatewayId).toBe(first.id);
    expect((await lookup('gateway-2-get_system_time'))?.gatewayId).toBe(second.id);
    expect(await lookup('gateway-3-get_system_time')).toBeNull();
  });

  it('stores the tool hash', async () => {
    const target = await gateway(db.dataSource, 'hashes');
    await insert(target, ['get-time']);
    expect((await lookup('hashes-get-time'))?.toolHash).toBe(toolHash(target.id, 'get-time'));
  });

  it('refuses the second of an ambiguous pair and keeps the rest of the batch', async () => {
    const a = await gateway(db.dataSource, 'a');
    const ab = await gateway(db.dataSource, 'a-b');
    await insert(a, ['b-c']);
    const result = await insert(ab, ['c', 'd']);
    expect(result.inserted.map((tool) => tool.originalName)).toEqual(['d']);
    expect(result.conflicts).toEqual([
      { name: 'c', reason: "virtual name 'a-b-c' is already used by tool 'b-c' of gateway 'a'" },
    ]);
    expect((await lookup('a-b-c'))?.gatewayId).toBe(a.id);
  });

  it('backs the clash check with the unique index too', async () => {
    const x = await gateway(db.dataSource, 'x');
    const xy = await gateway(db.dataSource, 'x-y');
    await insert(x, ['y-z']);
    const raw = db.dataSource.getRepository(Tool).insert({
      gatewayId: xy.id,
      gatewaySlug: 'x-y',
      originalName: 'z',
      inputSchema: {},
      toolHash: toolHash(xy.id, 'z'),
      contentHash: 'c',
    });
    await expect(raw).rejects.toThrow(/tool_virtual_name_uq/);
  });

  it('reports a name listed twice and a name over 128 characters', async () => {
    const target = await gateway(db.dataSource, 'dupes');
    const result = await insert(target, ['same', 'same', 'n'.repeat(125)]);
    expect(result.inserted).toHaveLength(1);
    expect(result.conflicts.map((conflict) => conflict.reason)).toEqual([
      'the upstream lists this name more than once',
      expect.stringContaining('breaks the MCP tool-name rule'),
    ]);
  });

  it('resolves a name by index scan among 10,000 tools', async () => {
    for (let g = 0; g < 10; g++) {
      const target = await gateway(db.dataSource, `bulk-${g}`);
      await insert(
        target,
        Array.from({ length: 1000 }, (_, i) => `tool_${i}`),
      );
    }
    await db.dataSource.query('ANALYZE tool');
    expect(await db.dataSource.getRepository(Tool).count()).toBeGreaterThanOrEqual(10_000);

    const qb = names.whereNameIs(
      db.dataSource.getRepository(Tool).createQueryBuilder('tool'),
      'bulk-7-tool_512',
    );
    const [sql, parameters] = qb.getQueryAndParameters();
    const plan = (
      await db.dataSource.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, parameters)
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Index Scan using tool_virtual_name_uq/);
    expect(plan).not.toMatch(/Seq Scan/);
    expect((await qb.getOne())?.originalName).toBe('tool_512');
  });

  it('filters by text through the trigram indexes, not a scan', async () => {
    await db.dataSource.query('SET enable_seqscan = off');
    try {
      const qb = names.whereMatches(
        db.dataSource.getRepository(Tool).createQueryBuilder('tool'),
        'ol_51',
      );
      const [sql, parameters] = qb.getQueryAndParameters();
      const plan = (
        await db.dataSource.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, parameters)
      )
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/Bitmap Index Scan on tool_virtual_name_trgm/);
      expect(plan).toMatch(/Bitmap Index Scan on tool_description_trgm/);
      expect(await qb.getCount()).toBe(10 * 11);
    } finally {
      await db.dataSource.query('RESET enable_seqscan');
    }
  });
});
