import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as PgClient } from 'pg';
import {
  api,
  asJson,
  mcpClient,
  percentile,
  runAlone,
  startPortico,
  startUpstream,
} from './support';

const SESSIONS = 32;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 8000);
const WARMUP_MS = 2000;
const ROUNDS = 3;
const LATENCY_BATCHES = 10;
const LATENCY_BATCH = 100;

/** Where Portico keeps its data during the bench. */
export type BenchDatabase = 'embedded' | 'postgres';

/** CPU seconds (user and system) a process has used so far; null where /proc is missing. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    // Fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

interface Round {
  callsPerSecond: number;
  calls: number;
}

/**
 * Calls per second from `sessions` SDK clients, each connected as a client connects (its GET
 * stream open) and having listed the tools, calling in a loop for `ms`.
 */
async function throughput(url: string, tool: string, ms: number, token?: string): Promise<Round> {
  const clients = await Promise.all(Array.from({ length: SESSIONS }, () => mcpClient(url, token)));
  for (const client of clients) await client.listTools();
  let calls = 0;
  const end = Date.now() + ms;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < end) {
        await client.callTool({ name: tool, arguments: { n: calls } });
        calls += 1;
      }
    }),
  );
  await Promise.all(clients.map((client) => client.close()));
  return { callsPerSecond: (calls / ms) * 1000, calls };
}

async function batch(client: Client, tool: string, into: number[]): Promise<void> {
  for (let i = 0; i < LATENCY_BATCH; i++) {
    const start = process.hrtime.bigint();
    await client.callTool({ name: tool, arguments: {} });
    into.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}

export interface OverheadResult {
  database: BenchDatabase;
  directCallsPerSecond: number;
  gatewayCallsPerSecond: number;
  /** The median of the rounds' ratios, each round gateway then direct back to back. */
  throughputRatio: number;
  roundRatios: number[];
  directP50Ms: number;
  gatewayP50Ms: number;
  addedP50Ms: number;
  /**
   * CPU time the Portico process spent per call in the measured gateway rounds: unlike the
   * ratio, it does not move with what else the machine runs. Null where /proc is missing.
   */
  gatewayCpuMsPerCall: number | null;
}

/**
 * DESIGN §4 "Gateway overhead", as an SDK client sees it: tools/call through Portico against the
 * same upstream called directly, by the SDK's own client. Both sides are warmed up first (a cold
 * first round of either side, its JIT still compiling the client, skews the ratio), then measured
 * in interleaved rounds, and the median ratio is reported. Latency interleaves batches likewise.
 */
export async function gatewayOverhead(
  database: BenchDatabase = 'embedded',
): Promise<OverheadResult> {
  const upstream = await startUpstream(10);
  const postgres = database === 'postgres' ? await scratchDatabase() : null;
  const portico = await startPortico(
    Number(process.env.BENCH_PORT ?? 39_170),
    postgres ? { DATABASE_URL: postgres.url } : { DATABASE_URL: '' },
  );
  try {
    await api(portico.baseUrl, portico.token, 'POST', '/api/v1/gateways', {
      name: 'bench',
      url: upstream.url,
    });
    const mcp = `${portico.baseUrl}/mcp`;
    let gatewayCpu = 0;
    let gatewayCalls = 0;
    const direct = async () => (await throughput(upstream.url, 'tool_1', LOAD_MS)).callsPerSecond;
    const gateway = async () => {
      const before = cpuSeconds(portico.child.pid);
      const round = await throughput(mcp, 'bench-tool_1', LOAD_MS, portico.token);
      const after = cpuSeconds(portico.child.pid);
      if (before !== null && after !== null) gatewayCpu += after - before;
      gatewayCalls += round.calls;
      return round.callsPerSecond;
    };
    await throughput(upstream.url, 'tool_1', WARMUP_MS);
    await throughput(mcp, 'bench-tool_1', WARMUP_MS, portico.token);
    const rounds: { direct: number; gateway: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, to spread drift in machine load over both.
      const first = round % 2 === 0 ? await direct() : await gateway();
      const second = round % 2 === 0 ? await gateway() : await direct();
      rounds.push(
        round % 2 === 0 ? { direct: first, gateway: second } : { direct: second, gateway: first },
      );
    }

    const directClient = await mcpClient(upstream.url);
    const gatewayClient = await mcpClient(mcp, portico.token);
    const directTimes: number[] = [];
    const gatewayTimes: number[] = [];
    await batch(directClient, 'tool_1', []);
    await batch(gatewayClient, 'bench-tool_1', []);
    for (let i = 0; i < LATENCY_BATCHES; i++) {
      await batch(directClient, 'tool_1', directTimes);
      await batch(gatewayClient, 'bench-tool_1', gatewayTimes);
    }
    await directClient.close();
    await gatewayClient.close();
    directTimes.sort((a, b) => a - b);
    gatewayTimes.sort((a, b) => a - b);

    const ratios = rounds.map((round) => round.gateway / round.direct).sort((a, b) => a - b);
    const mean = (values: number[]) =>
      values.reduce((sum, value) => sum + value, 0) / values.length;
    return {
      database,
      directCallsPerSecond: mean(rounds.map((round) => round.direct)),
      gatewayCallsPerSecond: mean(rounds.map((round) => round.gateway)),
      throughputRatio: ratios[Math.floor(ratios.length / 2)]!,
      roundRatios: rounds.map((round) => round.gateway / round.direct),
      directP50Ms: percentile(directTimes, 0.5),
      gatewayP50Ms: percentile(gatewayTimes, 0.5),
      addedP50Ms: percentile(gatewayTimes, 0.5) - percentile(directTimes, 0.5),
      gatewayCpuMsPerCall:
        cpuSeconds(portico.child.pid) === null ? null : (gatewayCpu * 1000) / gatewayCalls,
    };
  } finally {
    portico.stop();
    upstream.stop();
    await postgres?.drop();
  }
}

/**
 * A fresh database on the PostgreSQL server of BENCH_POSTGRES_URL (a database URL on it, such as
 * postgres://postgres@127.0.0.1:5432/test), dropped afterwards.
 */
async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.BENCH_POSTGRES_URL;
  if (!server) throw new Error('BENCH_POSTGRES_URL is not set');
  const name = `portico_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new PgClient({ connectionString: server });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

if (require.main === module)
  runAlone(
    () => gatewayOverhead((process.argv[2] as BenchDatabase | undefined) ?? 'embedded'),
    asJson,
  );
