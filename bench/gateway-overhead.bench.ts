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
  startProcess,
  startUpstream,
} from './support';

const SESSIONS = 32;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 8000);
const WARMUP_MS = 2000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
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
  /** The median of the rounds' ratios, each round's sides measured back to back. */
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
  /**
   * The same measures of a pass-through reverse proxy (`pass-through-proxy.ts`) in the same
   * rounds: the floor any Node gateway stands on, on this machine.
   */
  proxy: {
    callsPerSecond: number;
    throughputRatio: number;
    roundRatios: number[];
    addedP50Ms: number;
    cpuMsPerCall: number | null;
  };
}

/** One way of reaching the upstream's tools that the bench measures. */
interface Side {
  url: string;
  tool: string;
  token?: string;
  pid?: number;
  cpuSeconds: number;
  calls: number;
}

/** One throughput round of a side, adding to its CPU and call counts. */
async function measure(side: Side, ms: number): Promise<number> {
  const before = cpuSeconds(side.pid);
  const round = await throughput(side.url, side.tool, ms, side.token);
  const after = cpuSeconds(side.pid);
  if (before !== null && after !== null) side.cpuSeconds += after - before;
  side.calls += round.calls;
  return round.callsPerSecond;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

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
  const proxy = await startProcess(
    ['-r', 'ts-node/register/transpile-only', 'bench/pass-through-proxy.ts'],
    { TARGET: upstream.url, PORT: String(Number(process.env.BENCH_PORT ?? 39_170) + 1) },
    /http:\/\/\S+\/mcp/,
  );
  try {
    await api(portico.baseUrl, portico.token, 'POST', '/api/v1/gateways', {
      name: 'bench',
      url: upstream.url,
    });
    const direct: Side = { url: upstream.url, tool: 'tool_1', cpuSeconds: 0, calls: 0 };
    const gateway: Side = {
      url: `${portico.baseUrl}/mcp`,
      tool: 'bench-tool_1',
      token: portico.token,
      pid: portico.child.pid,
      cpuSeconds: 0,
      calls: 0,
    };
    const passThrough: Side = {
      url: proxy.match[0],
      tool: 'tool_1',
      pid: proxy.child.pid,
      cpuSeconds: 0,
      calls: 0,
    };
    const sides = [direct, gateway, passThrough];
    for (const side of sides) await throughput(side.url, side.tool, WARMUP_MS, side.token);
    const rounds: Map<Side, number>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate which side goes first, to spread drift in machine load over all of them.
      const result = new Map<Side, number>();
      for (let i = 0; i < sides.length; i++) {
        const side = sides[(round + i) % sides.length]!;
        result.set(side, await measure(side, LOAD_MS));
      }
      rounds.push(result);
    }

    const times = new Map<Side, number[]>(sides.map((side) => [side, []]));
    const clients = new Map<Side, Client>();
    for (const side of sides) clients.set(side, await mcpClient(side.url, side.token));
    for (const side of sides) await batch(clients.get(side)!, side.tool, []);
    for (let i = 0; i < LATENCY_BATCHES; i++)
      for (const side of sides) await batch(clients.get(side)!, side.tool, times.get(side)!);
    for (const client of clients.values()) await client.close();
    const p50 = (side: Side) =>
      percentile(
        [...times.get(side)!].sort((a, b) => a - b),
        0.5,
      );
    const ratios = (side: Side) => rounds.map((round) => round.get(side)! / round.get(direct)!);
    const cpuMsPerCall = (side: Side) =>
      cpuSeconds(side.pid) === null ? null : (side.cpuSeconds * 1000) / side.calls;
    return {
      database,
      directCallsPerSecond: mean(rounds.map((round) => round.get(direct)!)),
      gatewayCallsPerSecond: mean(rounds.map((round) => round.get(gateway)!)),
      throughputRatio: median(ratios(gateway)),
      roundRatios: ratios(gateway),
      directP50Ms: p50(direct),
      gatewayP50Ms: p50(gateway),
      addedP50Ms: p50(gateway) - p50(direct),
      gatewayCpuMsPerCall: cpuMsPerCall(gateway),
      proxy: {
        callsPerSecond: mean(rounds.map((round) => round.get(passThrough)!)),
        throughputRatio: median(ratios(passThrough)),
        roundRatios: ratios(passThrough),
        addedP50Ms: p50(passThrough) - p50(direct),
        cpuMsPerCall: cpuMsPerCall(passThrough),
      },
    };
  } finally {
    proxy.stop();
    portico.stop();
    upstream.stop();
    await postgres?.drop();
  }
}

/**
 * A fresh database on the PostgreSQL server of `server` (a database URL on it, such as
 * postgres://postgres@127.0.0.1:5432/test; BENCH_POSTGRES_URL by default), dropped afterwards.
 */
export async function scratchDatabase(
  server = process.env.BENCH_POSTGRES_URL,
  prefix = 'portico_bench',
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  if (!server) throw new Error('BENCH_POSTGRES_URL is not set');
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
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
  return {
    name,
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

if (require.main === module)
  runAlone(
    () => gatewayOverhead((process.argv[2] as BenchDatabase | undefined) ?? 'embedded'),
    asJson,
  );
