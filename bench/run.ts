import {
  type BenchDatabase,
  gatewayOverhead,
  type OverheadResult,
  POLICIES,
} from './gateway-overhead.bench';
import { policyWorstCase } from './policy-worst-case';
import { tokenExchangeLatency } from './token-exchange';
import { scale } from './scale.bench';
import { runToolSearchBench, toolSearchMarkdown } from './tool-search.bench';

interface Row {
  target: string;
  measured: string;
  ratio: number;
}

const row = (target: string, measured: string, ratio: number): Row => ({ target, measured, ratio });
const ms = (value: number) => `${value.toFixed(value < 0.1 ? 4 : 2)} ms`;
const micros = (milliseconds: number) => `${(milliseconds * 1000).toFixed(0)} µs`;
const ratios = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');

/** The gateway-overhead targets of DESIGN §4, for one era on one database. */
function overheadRows(overhead: OverheadResult): Row[] {
  const { era, database, proxy } = overhead;
  const where = `${era}, ${database}`;
  const rows = [
    row(
      `tools/call throughput ≥ 0.9× direct (32 clients, ${where})`,
      `${overhead.gatewayCallsPerSecond.toFixed(0)}/s vs ${overhead.directCallsPerSecond.toFixed(0)}/s direct = ${overhead.throughputRatio.toFixed(2)}× (rounds ${ratios(overhead.roundRatios)})`,
      overhead.throughputRatio / 0.9,
    ),
    row(
      `reference: the pass-through proxy's throughput in the same rounds (${where})`,
      `${proxy.callsPerSecond.toFixed(0)}/s = ${proxy.throughputRatio.toFixed(2)}× (rounds ${ratios(proxy.roundRatios)})`,
      proxy.throughputRatio / 0.9,
    ),
  ];
  const portico = overhead.gatewayCpuMsPerCall;
  if (portico !== null && proxy.cpuMsPerCall !== null)
    rows.push(
      row(
        `Portico CPU per call ≤ 1.2× the proxy's (${where})`,
        `${micros(portico)} vs ${micros(proxy.cpuMsPerCall)} = ${(portico / proxy.cpuMsPerCall).toFixed(2)}×`,
        (1.2 * proxy.cpuMsPerCall) / portico,
      ),
    );
  // At full load each side runs at its own rate, and CPU per call falls as the rate rises.
  const paced = overhead.pacedCpuMsPerCall;
  if (paced !== null && proxy.pacedCpuMsPerCall !== null)
    rows.push(
      row(
        `Portico CPU per call ≤ 1.2× the proxy's, both paced to ${Math.round(overhead.pacedCallsPerSecond)} calls/s (${where})`,
        `${micros(paced)} vs ${micros(proxy.pacedCpuMsPerCall)} = ${(paced / proxy.pacedCpuMsPerCall).toFixed(2)}×`,
        (1.2 * proxy.pacedCpuMsPerCall) / paced,
      ),
    );
  const policies = overhead.policies;
  rows.push(
    row(
      `reference: with ${POLICIES} policies, one read at every call (${where})`,
      `${policies.callsPerSecond.toFixed(0)}/s = ${policies.throughputRatio.toFixed(2)}× direct (${(policies.throughputRatio / overhead.throughputRatio).toFixed(2)}× without policies); ${policies.cpuMsPerCall === null || portico === null ? 'CPU n/a' : `${micros(policies.cpuMsPerCall)} CPU per call vs ${micros(portico)} without`}; p50 +${ms(policies.addedP50Ms)}`,
      policies.throughputRatio / 0.9,
    ),
  );
  rows.push(
    row(
      `p50 added latency ≤ the proxy's + 0.1 ms (one client, ${where})`,
      `+${ms(overhead.addedP50Ms)} vs proxy +${ms(proxy.addedP50Ms)} (${ms(overhead.gatewayP50Ms)} vs ${ms(overhead.directP50Ms)} direct)`,
      (proxy.addedP50Ms + 0.1) / Math.max(overhead.addedP50Ms, 0.001),
    ),
  );
  return rows;
}

// `npm run bench`: every performance target of DESIGN §4, as measured value and ratio to target
// (ratio ≥ 1 meets the target). Run on an otherwise idle machine; figures vary run to run.
async function main(): Promise<void> {
  const rows: Row[] = [];

  // Each era's SDK client's view, on the embedded database and, when BENCH_POSTGRES_URL names a
  // PostgreSQL server, on PostgreSQL too.
  const databases: BenchDatabase[] = process.env.BENCH_POSTGRES_URL
    ? ['postgres', 'embedded']
    : ['embedded'];
  const overheads: OverheadResult[] = [];
  for (const database of databases) {
    const eras = await gatewayOverhead(database);
    overheads.push(...eras);
    for (const overhead of eras) rows.push(...overheadRows(overhead));
    const session = eras.find((overhead) => overhead.era === '2025-11-25');
    const modern = eras.find((overhead) => overhead.era === '2026-07-28');
    const compared = (label: string, modernMs: number | null, sessionMs: number | null) => {
      if (modernMs && sessionMs)
        rows.push(
          row(
            `Portico CPU per 2026-07-28 call ≤ per 2025 call (${database}, ${label})`,
            `${micros(modernMs)} vs ${micros(sessionMs)} = ${(modernMs / sessionMs).toFixed(2)}×`,
            sessionMs / modernMs,
          ),
        );
    };
    if (session && modern) {
      const rate = `paced to ${Math.round(modern.pacedCallsPerSecond)} calls/s`;
      compared('each to its own upstream', modern.gatewayCpuMsPerCall, session.gatewayCpuMsPerCall);
      compared(`each to its own, ${rate}`, modern.pacedCpuMsPerCall, session.pacedCpuMsPerCall);
      // Like for like: both eras' clients to one upstream, in the same rounds.
      const toSession = session.crossed; // 2026-07-28 clients to the 2025 upstream
      const toModern = modern.crossed; // 2025 clients to the 2026-07-28 upstream
      if (toSession && toModern) {
        compared('both to the 2025 upstream', toSession.cpuMsPerCall, session.gatewayCpuMsPerCall);
        compared(
          `both to the 2025 upstream, ${rate}`,
          toSession.pacedCpuMsPerCall,
          session.pacedCpuMsPerCall,
        );
        compared(
          'both to the 2026-07-28 upstream',
          modern.gatewayCpuMsPerCall,
          toModern.cpuMsPerCall,
        );
        compared(
          `both to the 2026-07-28 upstream, ${rate}`,
          modern.pacedCpuMsPerCall,
          toModern.pacedCpuMsPerCall,
        );
      }
    }
  }

  const big = await scale();
  rows.push(
    row(
      `virtual-name resolution p99 < 1 ms from cache (${big.tools} tools)`,
      ms(big.resolveFromCacheP99Ms),
      1 / big.resolveFromCacheP99Ms,
    ),
    row(
      'by-name lookup in the database is an index scan',
      big.databasePlan.split(' | ')[0]!,
      big.databasePlan.startsWith('Index Scan') ? 1 : 0,
    ),
    row(
      'tools/list of a 1,000-tool server < 30 ms',
      `p50 ${ms(big.toolsListOf1000P50Ms)}, p99 ${ms(big.toolsListOf1000P99Ms)}`,
      30 / big.toolsListOf1000P50Ms,
    ),
    row(
      'sync diff of 5,000 upstream tools < 2 s',
      `added ${big.syncOf5000AddedSeconds} s, unchanged ${big.syncOf5000UnchangedSeconds} s, updated ${big.syncOf5000UpdatedSeconds} s`,
      2 /
        Math.max(
          big.syncOf5000AddedSeconds,
          big.syncOf5000UnchangedSeconds,
          big.syncOf5000UpdatedSeconds,
        ),
    ),
  );
  const admin = big.adminToolsPage;
  rows.push(
    row(
      'admin tools page < 100 ms',
      `first page ${ms(admin.firstPageP50Ms)}, page 2,000 ${ms(admin.deepPageP50Ms)}, text filter ${ms(admin.filteredP50Ms)} (p50)`,
      100 / Math.max(admin.firstPageP50Ms, admin.deepPageP50Ms),
    ),
  );

  const policy = await policyWorstCase();
  const costliest = policy.families.reduce((worst, row) => (row.p99Ms > worst.p99Ms ? row : worst));
  rows.push(
    row(
      'one policy evaluation, the costliest the save check accepts on the largest arguments it reads, ≤ 5 ms (p99)',
      `p99 ${ms(policy.p99Ms)}, max ${ms(policy.maxMs)} over ${policy.families.length} kinds of cost; the costliest: ${costliest.family}, p99 ${ms(costliest.p99Ms)}`,
      5 / costliest.p99Ms,
    ),
  );

  const exchange = await tokenExchangeLatency();
  rows.push(
    row(
      'token exchange: added latency of a tools/call whose exchanged token is held (no target; ratio: bearer ÷ cached)',
      `${ms(exchange.cachedMedianMs)} vs ${ms(exchange.bearerMedianMs)} with a fixed bearer token (p50): +${ms(exchange.cachedMedianMs - exchange.bearerMedianMs)}`,
      exchange.bearerMedianMs / exchange.cachedMedianMs,
    ),
    row(
      'token exchange: a new caller’s first tools/call (the exchange at a loopback token service, and the caller’s own upstream connection) (no target; ratio: cached ÷ first)',
      `${ms(exchange.firstMedianMs)} (p50): +${ms(exchange.firstMedianMs - exchange.cachedMedianMs)} over a held token; the exchange alone ${ms(exchange.exchangeAloneMedianMs)}`,
      exchange.cachedMedianMs / exchange.firstMedianMs,
    ),
  );

  const search = await runToolSearchBench();

  console.log('\n| Target | Measured | Ratio to target |\n| --- | --- | --- |');
  for (const { target, measured, ratio } of rows)
    console.log(`| ${target} | ${measured} | ${ratio.toFixed(2)} |`);
  console.log(`\n${toolSearchMarkdown(search)}`);
  console.log(
    JSON.stringify(
      { overhead: overheads, scale: big, policy, tokenExchange: exchange, toolSearch: search },
      null,
      2,
    ),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
