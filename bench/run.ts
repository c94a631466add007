import { type BenchDatabase, gatewayOverhead, type OverheadResult } from './gateway-overhead.bench';
import { scale } from './scale.bench';
import { runToolSearchBench, toolSearchMarkdown } from './tool-search.bench';

interface Row {
  target: string;
  measured: string;
  ratio: number;
}

const row = (target: string, measured: string, ratio: number): Row => ({ target, measured, ratio });
const ms = (value: number) => `${value.toFixed(value < 0.1 ? 4 : 2)} ms`;

// `npm run bench`: every performance target of DESIGN §4, as measured value and ratio to target
// (ratio ≥ 1 meets the target). Run on an otherwise idle machine; figures vary run to run.
async function main(): Promise<void> {
  const rows: Row[] = [];

  // The SDK client's view, on the embedded database and, when BENCH_POSTGRES_URL names a
  // PostgreSQL server, on PostgreSQL too.
  const databases: BenchDatabase[] = process.env.BENCH_POSTGRES_URL
    ? ['postgres', 'embedded']
    : ['embedded'];
  const overheads: OverheadResult[] = [];
  for (const database of databases) {
    const overhead = await gatewayOverhead(database);
    overheads.push(overhead);
    rows.push(
      row(
        `tools/call throughput ≥ 0.85× direct (32 sessions, ${database})`,
        `${overhead.gatewayCallsPerSecond.toFixed(0)}/s vs ${overhead.directCallsPerSecond.toFixed(0)}/s direct = ${overhead.throughputRatio.toFixed(2)}× (rounds ${overhead.roundRatios.map((ratio) => ratio.toFixed(2)).join(', ')})${overhead.gatewayCpuMsPerCall === null ? '' : `; Portico CPU ${(overhead.gatewayCpuMsPerCall * 1000).toFixed(0)} µs per call`}`,
        overhead.throughputRatio / 0.85,
      ),
      row(
        `reference: a pass-through proxy in the same rounds (${database} run)`,
        `${overhead.proxy.callsPerSecond.toFixed(0)}/s = ${overhead.proxy.throughputRatio.toFixed(2)}× (rounds ${overhead.proxy.roundRatios.map((ratio) => ratio.toFixed(2)).join(', ')}), +${ms(overhead.proxy.addedP50Ms)} p50${overhead.proxy.cpuMsPerCall === null ? '' : `; proxy CPU ${(overhead.proxy.cpuMsPerCall * 1000).toFixed(0)} µs per call`}`,
        overhead.proxy.throughputRatio / 0.85,
      ),
      row(
        `p50 added latency ≤ 0.5 ms (one session, ${database})`,
        `${ms(overhead.addedP50Ms)} (${ms(overhead.gatewayP50Ms)} vs ${ms(overhead.directP50Ms)})`,
        0.5 / Math.max(overhead.addedP50Ms, 0.001),
      ),
    );
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

  const search = await runToolSearchBench();

  console.log('\n| Target | Measured | Ratio to target |\n| --- | --- | --- |');
  for (const { target, measured, ratio } of rows)
    console.log(`| ${target} | ${measured} | ${ratio.toFixed(2)} |`);
  console.log(`\n${toolSearchMarkdown(search)}`);
  console.log(JSON.stringify({ overhead: overheads, scale: big, toolSearch: search }, null, 2));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
