import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client as PgClient } from 'pg';
import {
  api,
  asJson,
  type BenchClient,
  type Era,
  exited,
  eraClient,
  percentile,
  type Running,
  runAlone,
  startPortico,
  startProcess,
  startUpstream,
} from './support';

const CLIENTS = 32;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 8000);
const WARMUP_MS = 2000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LATENCY_BATCHES = 10;
const LATENCY_BATCH = 100;
/** The paced rate, as a share of the slower era's rate through Portico at full load. */
const PACED_SHARE = 0.5;
/** Both by default; BENCH_ERAS=2026-07-28 (or 2025-11-25) measures one, as when profiling it. */
const ERAS = (process.env.BENCH_ERAS ?? '2025-11-25,2026-07-28').split(',') as Era[];
/**
 * The gateway each era's upstream is registered as (its tools are `<name>-tool_<i>` on /mcp), and
 * the era Portico's probe must find it to be.
 */
const GATEWAY: Record<Era, { name: string; probed: string }> = {
  '2025-11-25': { name: 'bench', probed: '2025' },
  '2026-07-28': { name: 'modern', probed: '2026-07-28' },
};

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

/** One way of reaching an upstream's tools that the bench measures. */
interface Side {
  era: Era;
  url: string;
  tool: string;
  token?: string;
  pid?: number;
  cpuSeconds: number;
  calls: number;
}

/** CPU seconds a process used over some calls. */
interface Usage {
  cpuSeconds: number;
  calls: number;
}

interface Round {
  callsPerSecond: number;
  calls: number;
}

/**
 * Calls per second from 32 clients of the side's era, each connected as a client connects (a
 * 2025 session with its GET stream open; a 2026-07-28 client after `server/discover`) and having
 * listed the tools, calling in a loop for `ms`.
 */
async function throughput(side: Side, ms: number): Promise<Round> {
  const clients = await connected(side);
  let calls = 0;
  const end = Date.now() + ms;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < end) {
        await client.callTool({ name: side.tool, arguments: { n: calls } });
        calls += 1;
      }
    }),
  );
  await Promise.all(clients.map((client) => client.close()));
  return { callsPerSecond: (calls / ms) * 1000, calls };
}

/** The side's CLIENTS clients, connected as a client connects and having listed the tools. */
async function connected(side: Side): Promise<BenchClient[]> {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, () => eraClient(side.era, side.url, side.token)),
  );
  for (const client of clients) await client.listTools();
  return clients;
}

async function batch(client: BenchClient, tool: string, into: number[]): Promise<void> {
  for (let i = 0; i < LATENCY_BATCH; i++) {
    const start = process.hrtime.bigint();
    await client.callTool({ name: tool, arguments: {} });
    into.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}

/** One round of a side, adding to its CPU and call counts. */
async function measure(side: Side, ms: number): Promise<number> {
  const before = cpuSeconds(side.pid);
  const round = await throughput(side, ms);
  const after = cpuSeconds(side.pid);
  if (before !== null && after !== null) side.cpuSeconds += after - before;
  side.calls += round.calls;
  return round.callsPerSecond;
}

/**
 * Portico's CPU per call while the side's 32 clients call at `rate` calls per second between them
 * (each waits for its next slot), measured once they have connected and listed: the eras' clients
 * differ in speed, so at full load each era runs at its own rate, and Portico's CPU per call falls
 * as the rate rises. Paced to the same rate, the eras' calls compare as like for like.
 */
async function paced(side: Side, rate: number, ms: number): Promise<Usage> {
  const clients = await connected(side);
  const interval = (CLIENTS * 1000) / rate;
  let calls = 0;
  const before = cpuSeconds(side.pid);
  const start = Date.now();
  await Promise.all(
    clients.map(async (client, index) => {
      for (let next = start + (index * interval) / CLIENTS; next < start + ms; next += interval) {
        const wait = next - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        await client.callTool({ name: side.tool, arguments: { n: calls } });
        calls += 1;
      }
    }),
  );
  const after = cpuSeconds(side.pid);
  await Promise.all(clients.map((client) => client.close()));
  return { cpuSeconds: (after ?? 0) - (before ?? 0), calls };
}

export interface OverheadResult {
  database: BenchDatabase;
  era: Era;
  directCallsPerSecond: number;
  gatewayCallsPerSecond: number;
  /** The median of the rounds' ratios, each round's sides measured back to back. */
  throughputRatio: number;
  roundRatios: number[];
  directP50Ms: number;
  gatewayP50Ms: number;
  addedP50Ms: number;
  /**
   * CPU time the Portico process spent per call in the measured gateway rounds. It moves with what
   * else the machine runs: on two cores, Portico sleeps and wakes more often per call while the
   * clients and the upstream take the CPU, and each wake costs (see `crossed`). Null where /proc
   * is missing.
   */
  gatewayCpuMsPerCall: number | null;
  /**
   * Portico's CPU per call with every era's clients paced to one rate (`pacedCallsPerSecond`, half
   * the slower era's rate through Portico at full load), in rounds interleaved with the proxy's at
   * that rate: the eras, and Portico and the proxy, compared at the same load. Null where /proc is
   * missing.
   */
  pacedCpuMsPerCall: number | null;
  pacedCallsPerSecond: number;
  /**
   * The same measures of a pass-through reverse proxy (`pass-through-proxy.ts`) to the same
   * upstream in the same rounds: the floor any Node gateway stands on, on this machine.
   */
  proxy: {
    callsPerSecond: number;
    throughputRatio: number;
    roundRatios: number[];
    addedP50Ms: number;
    cpuMsPerCall: number | null;
    /** Its CPU per call with its clients paced to `pacedCallsPerSecond`, in the same rounds. */
    pacedCpuMsPerCall: number | null;
  };
  /**
   * The other era's clients through Portico to this era's upstream, in the same rounds. The eras'
   * upstreams and clients differ in cost (the 2026-07-28 SDK builds a server for every request),
   * and so in how much of the machine they leave Portico; to one upstream, the two eras' calls
   * through Portico compare like for like. Null when one era is measured.
   */
  crossed: {
    clientEra: Era;
    callsPerSecond: number;
    cpuMsPerCall: number | null;
    /** Paced to `pacedCallsPerSecond`, in the same rounds. */
    pacedCpuMsPerCall: number | null;
  } | null;
  /**
   * The same tools through a virtual server of the same Portico that holds POLICIES policies,
   * the first of which reads the call's arguments, so that every call evaluates it.
   */
  policies: {
    callsPerSecond: number;
    throughputRatio: number;
    roundRatios: number[];
    addedP50Ms: number;
    cpuMsPerCall: number | null;
  };
}

/**
 * An era's sides: its upstream called directly, through Portico, through Portico with a policy
 * set, and through the proxy; when both eras run, also through Portico by the other era's clients.
 */
interface EraSides {
  era: Era;
  direct: Side;
  gateway: Side;
  policies: Side;
  passThrough: Side;
  crossed: Side | null;
}

/** Policies on the bench's policy side: one decided by each call's arguments, the rest by listing. */
export const POLICIES = 20;

/**
 * A virtual server of the era's tools with POLICIES policies: first a deny that depends on the
 * arguments (evaluated at every call, never matching the bench's calls), then an approval for
 * destructive tools and deny rules for viewers and other tools, which the listing decides.
 */
async function policyServer(
  baseUrl: string,
  token: string,
  era: Era,
  gatewayId: string,
): Promise<string> {
  const tools = await api<{ items: { id: string }[] }>(
    baseUrl,
    token,
    'GET',
    `/api/v1/tools?gatewayId=${gatewayId}&limit=100`,
  );
  const server = await api<{ id: string }>(baseUrl, token, 'POST', '/api/v1/servers', {
    name: `${GATEWAY[era].name}-policies`,
    toolIds: tools.items.map((tool) => tool.id),
  });
  const policy = (priority: number, expression: string, effect: string) =>
    api(baseUrl, token, 'POST', '/api/v1/policies', {
      name: `${GATEWAY[era].name}-${priority}`,
      expression,
      effect,
      priority,
      serverId: server.id,
    });
  await policy(1, 'has(args.table) && args.table == "secrets"', 'deny');
  await policy(2, 'tool.annotations.destructiveHint == true', 'approve');
  for (let priority = 3; priority <= POLICIES; priority++)
    await policy(
      priority,
      `principal.role == "viewer" && tool.name == "${GATEWAY[era].name}-tool_${priority}"`,
      'deny',
    );
  return server.id;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * DESIGN §4 "Gateway overhead", as a client sees it, in both eras of MCP: tools/call through
 * Portico against the same upstream called directly and through a do-nothing proxy, by each
 * era's own SDK client (v1 on a 2025 upstream, v2 pinned to 2026-07-28 on a stateless one). One
 * Portico serves both eras. Every side is warmed up first (a cold first round, its JIT still
 * compiling the client, skews the ratio), then all sides of both eras are measured in
 * interleaved rounds, and each era's median ratio is reported. Latency interleaves batches
 * likewise.
 */
export async function gatewayOverhead(
  database: BenchDatabase = 'embedded',
): Promise<OverheadResult[]> {
  const port = Number(process.env.BENCH_PORT ?? 39_170);
  const started: Running[] = [];
  const postgres = database === 'postgres' ? await scratchDatabase() : null;
  try {
    const portico = await startPortico(
      port,
      postgres ? { DATABASE_URL: postgres.url } : { DATABASE_URL: '' },
    );
    started.push(portico);
    const eras: EraSides[] = [];
    for (const [index, era] of ERAS.entries()) {
      const upstream = await startUpstream(10, 0, era);
      started.push(upstream);
      const proxy = await startProcess(
        ['-r', 'ts-node/register/transpile-only', 'bench/pass-through-proxy.ts'],
        { TARGET: upstream.url, PORT: String(port + 1 + index) },
        /http:\/\/\S+\/mcp/,
      );
      started.push(proxy);
      const gateway = await api<{ id: string; protocol: { era: string } | null }>(
        portico.baseUrl,
        portico.token,
        'POST',
        '/api/v1/gateways',
        { name: GATEWAY[era].name, url: upstream.url },
      );
      if (gateway.protocol?.era !== GATEWAY[era].probed)
        throw new Error(`the ${era} upstream was taken as ${gateway.protocol?.era ?? 'unknown'}`);
      const side = (url: string, tool: string, pid?: number, token?: string): Side => ({
        era,
        url,
        tool,
        ...(pid === undefined ? {} : { pid }),
        ...(token === undefined ? {} : { token }),
        cpuSeconds: 0,
        calls: 0,
      });
      eras.push({
        era,
        direct: side(upstream.url, 'tool_1'),
        gateway: side(
          `${portico.baseUrl}/mcp`,
          `${GATEWAY[era].name}-tool_1`,
          portico.child.pid,
          portico.token,
        ),
        policies: side(
          `${portico.baseUrl}/servers/${await policyServer(portico.baseUrl, portico.token, era, gateway.id)}/mcp`,
          `${GATEWAY[era].name}-tool_1`,
          portico.child.pid,
          portico.token,
        ),
        passThrough: side(proxy.match[0], 'tool_1', proxy.child.pid),
        crossed: null,
      });
    }
    if (eras.length === 2)
      for (const [index, eraSides] of eras.entries())
        eraSides.crossed = { ...eraSides.gateway, era: eras[1 - index]!.era };

    const sides = eras.flatMap(({ direct, gateway, policies, passThrough, crossed }) => [
      direct,
      gateway,
      policies,
      passThrough,
      ...(crossed ? [crossed] : []),
    ]);
    for (const side of sides) await throughput(side, WARMUP_MS);
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

    const pacedRate =
      PACED_SHARE *
      Math.min(...eras.map(({ gateway }) => mean(rounds.map((round) => round.get(gateway)!))));
    // Each era through Portico (by either era's clients) and through the proxy, at one rate.
    const pacedSides = eras.flatMap(({ gateway, passThrough, crossed }) => [
      gateway,
      passThrough,
      ...(crossed ? [crossed] : []),
    ]);
    const pacedUsage = new Map<Side, Usage>();
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < pacedSides.length; i++) {
        const side = pacedSides[(round + i) % pacedSides.length]!;
        const used = await paced(side, pacedRate, LOAD_MS);
        const sum = pacedUsage.get(side) ?? { cpuSeconds: 0, calls: 0 };
        pacedUsage.set(side, {
          cpuSeconds: sum.cpuSeconds + used.cpuSeconds,
          calls: sum.calls + used.calls,
        });
      }

    const times = new Map<Side, number[]>(sides.map((side) => [side, []]));
    const clients = new Map<Side, BenchClient>();
    for (const side of sides) clients.set(side, await eraClient(side.era, side.url, side.token));
    for (const side of sides) await batch(clients.get(side)!, side.tool, []);
    for (let i = 0; i < LATENCY_BATCHES; i++)
      for (const side of sides) await batch(clients.get(side)!, side.tool, times.get(side)!);
    for (const client of clients.values()) await client.close();

    const p50 = (side: Side) =>
      percentile(
        [...times.get(side)!].sort((a, b) => a - b),
        0.5,
      );
    const cpuMsPerCall = (side: Side, usage: Usage = side) =>
      cpuSeconds(side.pid) === null ? null : (usage.cpuSeconds * 1000) / usage.calls;
    return eras.map(({ era, direct, gateway, policies, passThrough, crossed }) => {
      const ratios = (side: Side) => rounds.map((round) => round.get(side)! / round.get(direct)!);
      return {
        database,
        era,
        directCallsPerSecond: mean(rounds.map((round) => round.get(direct)!)),
        gatewayCallsPerSecond: mean(rounds.map((round) => round.get(gateway)!)),
        throughputRatio: median(ratios(gateway)),
        roundRatios: ratios(gateway),
        directP50Ms: p50(direct),
        gatewayP50Ms: p50(gateway),
        addedP50Ms: p50(gateway) - p50(direct),
        gatewayCpuMsPerCall: cpuMsPerCall(gateway),
        pacedCpuMsPerCall: cpuMsPerCall(gateway, pacedUsage.get(gateway)),
        pacedCallsPerSecond: pacedRate,
        proxy: {
          callsPerSecond: mean(rounds.map((round) => round.get(passThrough)!)),
          throughputRatio: median(ratios(passThrough)),
          roundRatios: ratios(passThrough),
          addedP50Ms: p50(passThrough) - p50(direct),
          cpuMsPerCall: cpuMsPerCall(passThrough),
          pacedCpuMsPerCall: cpuMsPerCall(passThrough, pacedUsage.get(passThrough)),
        },
        crossed: crossed && {
          clientEra: crossed.era,
          callsPerSecond: mean(rounds.map((round) => round.get(crossed)!)),
          cpuMsPerCall: cpuMsPerCall(crossed),
          pacedCpuMsPerCall: cpuMsPerCall(crossed, pacedUsage.get(crossed)),
        },
        policies: {
          callsPerSecond: mean(rounds.map((round) => round.get(policies)!)),
          throughputRatio: median(ratios(policies)),
          roundRatios: ratios(policies),
          addedP50Ms: p50(policies) - p50(direct),
          cpuMsPerCall: cpuMsPerCall(policies),
        },
      };
    });
  } finally {
    for (const running of started.reverse()) running.stop();
    // A CPU profile is written as Portico exits: wait for it, as for the database's last user.
    await Promise.all(started.map((running) => exited(running.child)));
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
