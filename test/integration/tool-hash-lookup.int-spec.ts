import { randomUUID } from 'node:crypto';
import { Gateway } from '../../src/gateways/gateway.entity';
import { ServedToolsQuery } from '../../src/tools/served-tools.query';
import { toolHash } from '../../src/tools/tool-hash';
import { ToolWriter } from '../../src/tools/tool.writer';
import { Tool } from '../../src/tools/tool.entity';
import { toolDefinition } from '../support/factories';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

describe('looking tools up by hash', () => {
  let db: TestDataSource;
  let served: ServedToolsQuery;
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    db = await openTestDataSource();
    served = new ServedToolsQuery(db.dataSource, db.names);
    const writer = new ToolWriter(db.names);
    for (let g = 0; g < 2; g++) {
      const slug = `hash-${g}`;
      const gateway = await db.dataSource
        .getRepository(Gateway)
        .save({ name: slug, slug, url: `http://127.0.0.1/${slug}/${randomUUID()}` });
      gateways.push(gateway);
      await db.dataSource.transaction((em) =>
        writer.insert(
          em,
          gateway,
          Array.from({ length: 1000 }, (_, i) => toolDefinition(`tool_${i}`)),
        ),
      );
    }
    await db.dataSource.query('ANALYZE tool');
  });

  afterAll(async () => {
    await db.close();
  });

  it('finds a tool by index scan among 2,000', async () => {
    const gateway = gateways[1]!;
    const qb = served.byHashQuery(toolHash(gateway.id, 'tool_512'));
    const [sql, parameters] = qb.getQueryAndParameters();
    const plan = (
      await db.dataSource.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, parameters)
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Index Scan using tool_hash_uq/);
    expect(plan).not.toMatch(/Seq Scan on tool/);
    expect(await qb.getOne()).toMatchObject({ gatewayId: gateway.id, originalName: 'tool_512' });
  });

  it('finds only tools that are served: enabled, of an enabled gateway', async () => {
    const [first, second] = gateways;
    const hash = toolHash(first!.id, 'tool_7');
    await db.dataSource.getRepository(Tool).update({ toolHash: hash }, { enabled: false });
    expect(await served.byHash(hash)).toBeNull();

    const other = toolHash(second!.id, 'tool_7');
    expect(await served.byHash(other)).not.toBeNull();
    await db.dataSource.getRepository(Gateway).update(second!.id, { enabled: false });
    expect(await served.byHash(other)).toBeNull();
  });
});
