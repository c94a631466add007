import { type INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/load-config';
import { EventBus } from '../src/events/event-bus';
import { Gateway } from '../src/gateways/gateway.entity';
import { Directories } from '../src/mcp/directory/directories.service';
import { ServersService } from '../src/servers/servers.service';
import { TeamScope } from '../src/auth/team-scope';
import { ToolNameQuery } from '../src/virtual-names/tool-name.query';
import { ToolWriter } from '../src/tools/tool.writer';
import { Tool } from '../src/tools/tool.entity';
import { loginAgent } from '../test/support/admin-browser-session';
import {
  ADMIN_PASSWORD,
  api,
  asJson,
  mcpClient,
  percentile,
  runAlone,
  startUpstream,
  timed,
} from './support';

const GATEWAYS = Number(process.env.BENCH_GATEWAYS ?? 1000);
const TOOLS_PER_GATEWAY = Number(process.env.BENCH_TOOLS_PER_GATEWAY ?? 100);
const SERVER_TOOLS = 1000;
const SYNC_TOOLS = 5000;

export interface AdminPageTimes {
  firstPageP50Ms: number;
  deepPageP50Ms: number;
  filteredP50Ms: number;
}

export interface ScaleResult {
  tools: number;
  seedSeconds: number;
  resolveFromCacheP99Ms: number;
  resolveFromDatabaseP99Ms: number;
  databasePlan: string;
  toolsListOf1000P50Ms: number;
  toolsListOf1000P99Ms: number;
  syncOf5000AddedSeconds: number;
  syncOf5000UnchangedSeconds: number;
  syncOf5000UpdatedSeconds: number;
  adminToolsPage: AdminPageTimes;
}

function definition(name: string) {
  return {
    name,
    title: null,
    description: `Does ${name.replace(/_/g, ' ')} for the benchmark`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        limit: { type: 'number' },
      },
    },
    outputSchema: null,
    annotations: { readOnlyHint: true },
    meta: null,
  };
}

/** DESIGN §4 "Scale": 100,000 tools over 1,000 gateways. */
export async function scale(): Promise<ScaleResult> {
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-bench-')),
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'pglite://memory',
    ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    SYNC_INTERVAL_SECONDS: '0',
    PORT: '0',
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const upstream = await startUpstream(SYNC_TOOLS);
  try {
    const seedSeconds = await seed(app);
    const dataSource = app.get(DataSource);
    const names = app.get(ToolNameQuery);
    const token = (
      await api<{ accessToken: string }>(baseUrl, '', 'POST', '/api/v1/auth/token', {
        username: 'admin',
        password: ADMIN_PASSWORD,
      })
    ).accessToken;

    // Resolution from the cached directory of the gateway-wide endpoint.
    const directory = (await app.get(Directories).get({ kind: 'all' }))!.tools;
    const probes = Array.from(
      { length: 20_000 },
      (_, i) => `bulk-${i % GATEWAYS}-tool_${(i * 7) % TOOLS_PER_GATEWAY}`,
    );
    const cacheTimes: number[] = [];
    for (const probe of probes) {
      const start = process.hrtime.bigint();
      if (!directory.byName.get(probe)) throw new Error(`unresolved ${probe}`);
      cacheTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    cacheTimes.sort((a, b) => a - b);

    // Resolution in the database, through the virtual-name query builder.
    const lookup = (name: string) =>
      names.whereNameIs(dataSource.getRepository(Tool).createQueryBuilder('tool'), name);
    const [sql, parameters] = lookup('bulk-500-tool_50').getQueryAndParameters();
    const plan = (await dataSource.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, parameters))
      .map((row) => row['QUERY PLAN'])
      .join(' | ');
    let probe = 0;
    const databaseTimes = await timed(500, () => lookup(probes[probe++]!).getOne());

    // tools/list of a 1,000-tool virtual server.
    const serverTools = await dataSource
      .getRepository(Tool)
      .find({ select: { id: true }, take: SERVER_TOOLS, order: { id: 'ASC' } });
    const server = await app
      .get(ServersService)
      .create({ name: 'Thousand', toolIds: serverTools.map((tool) => tool.id) }, TeamScope.ALL);
    const client = await mcpClient(`${baseUrl}/servers/${server.id}/mcp`, token);
    const listed = await client.listTools();
    if (listed.tools.length !== Math.min(SERVER_TOOLS, config.mcpPageSize))
      throw new Error(`listed ${listed.tools.length}`);
    const listTimes = await timed(50, async () => {
      let cursor: string | undefined;
      do {
        cursor = (await client.listTools(cursor ? { cursor } : {})).nextCursor;
      } while (cursor);
    });
    await client.close();

    // Sync diff of 5,000 upstream tools: all added, then all unchanged, then all updated.
    const gateway = await api<{ id: string }>(baseUrl, token, 'POST', '/api/v1/gateways', {
      name: 'Sync bench',
      url: upstream.url,
    });
    const sync = async () => {
      const start = Date.now();
      await api(baseUrl, token, 'POST', `/api/v1/gateways/${gateway.id}/sync`);
      return (Date.now() - start) / 1000;
    };
    await app.get(DataSource).getRepository(Tool).delete({ gatewayId: gateway.id });
    const added = await sync();
    const unchanged = await sync();
    await upstream.command('bump', /bumped/);
    const updated = await sync();

    return {
      tools: await dataSource.getRepository(Tool).count(),
      seedSeconds,
      resolveFromCacheP99Ms: percentile(cacheTimes, 0.99),
      resolveFromDatabaseP99Ms: percentile(databaseTimes, 0.99),
      databasePlan: plan,
      toolsListOf1000P50Ms: percentile(listTimes, 0.5),
      toolsListOf1000P99Ms: percentile(listTimes, 0.99),
      syncOf5000AddedSeconds: added,
      syncOf5000UnchangedSeconds: unchanged,
      syncOf5000UpdatedSeconds: updated,
      adminToolsPage: await adminToolsPage(baseUrl),
    };
  } finally {
    upstream.stop();
    await app.close();
  }
}

async function seed(app: INestApplication): Promise<number> {
  const start = Date.now();
  const dataSource = app.get(DataSource);
  const writer = app.get(ToolWriter);
  for (let g = 0; g < GATEWAYS; g++) {
    const gateway = await dataSource.getRepository(Gateway).save({
      name: `Bulk ${g}`,
      slug: `bulk-${g}`,
      url: `http://127.0.0.1:9/bulk-${g}-${randomUUID()}`,
    });
    await dataSource.transaction((em) =>
      writer.insert(
        em,
        gateway,
        Array.from({ length: TOOLS_PER_GATEWAY }, (_, i) => definition(`tool_${i}`)),
      ),
    );
  }
  await dataSource.query('ANALYZE');
  await app.get(EventBus).publish({ type: 'catalog.changed', gatewayIds: [] });
  return (Date.now() - start) / 1000;
}

/** The admin tools page (first page, a page deep in the catalogue, and a text filter), p50. */
async function adminToolsPage(baseUrl: string): Promise<AdminPageTimes> {
  const { agent } = await loginAgent(baseUrl, ADMIN_PASSWORD);
  const p50 = async (path: string) => {
    await agent.get(path).expect(200);
    return percentile(await timed(30, () => agent.get(path).expect(200)), 0.5);
  };
  return {
    firstPageP50Ms: await p50('/admin/tools'),
    deepPageP50Ms: await p50('/admin/tools?page=2000'),
    filteredP50Ms: await p50('/admin/tools?q=tool_42'),
  };
}

if (require.main === module) runAlone(scale, asJson);
