import { performance } from 'node:perf_hooks';
import { recordedCatalogues } from '../bench/catalogues/evaluation-set';
import {
  type CatalogueUnderScan,
  flaggedRate,
  scanCatalogues,
  scannedDefinition,
} from '../src/scanner/catalogue-scan';
import { scanDefinition } from '../src/scanner/definition-scanner';
import { type ScannedDefinition, SEVERITIES } from '../src/scanner/finding';
import { type KnownTool, scanContext, ToolNameIndex } from '../src/scanner/tool-name-index';

// `npm run scan:catalogues`: the definition scanner over the recorded catalogues of real MCP
// servers (bench/catalogues/recorded), each in the context of all the others. These servers are
// benign, so every finding is a false positive unless the listing says otherwise. Then the time
// of one sync's scan: 5,000 definitions of one gateway, against an index of 100,000 tools.

const SYNC_DEFINITIONS = 5_000;
const INDEXED_TOOLS = 100_000;
const percent = (rate: number) => `${(rate * 100).toFixed(2)}%`;

function report(catalogues: CatalogueUnderScan[]): void {
  const result = scanCatalogues(catalogues);
  console.log(`catalogues: ${result.catalogues}, definitions scanned: ${result.definitions}`);
  for (const severity of SEVERITIES)
    console.log(`  worst finding ${severity}: ${result.flagged[severity]} definitions`);
  console.log('findings:');
  for (const finding of result.findings)
    console.log(
      `  [${finding.severity}] ${finding.catalogue}/${finding.definition} ${finding.rule} ` +
        `at ${finding.field}: ${finding.excerpt}`,
    );
  console.log(
    `false-positive rate (definitions flagged): high ${percent(flaggedRate(result, 'high'))}, ` +
      `medium or above ${percent(flaggedRate(result, 'medium'))}, ` +
      `any ${percent(flaggedRate(result, 'low'))}`,
  );
}

/** `count` entries of the catalogues, repeated under numbered slugs past the first copy. */
function repeated<T>(
  catalogues: CatalogueUnderScan[],
  count: number,
  entry: (slug: string, raw: unknown) => T,
): T[] {
  const out: T[] = [];
  for (let copy = 0; out.length < count; copy++)
    for (const catalogue of catalogues)
      for (const raw of catalogue.tools) {
        if (out.length === count) return out;
        out.push(entry(copy === 0 ? catalogue.slug : `${catalogue.slug}-${copy}`, raw));
      }
  return out;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timing(catalogues: CatalogueUnderScan[]): void {
  const known = repeated<KnownTool>(catalogues, INDEXED_TOOLS, (slug, raw) => ({
    gatewaySlug: slug,
    name: scannedDefinition('tool', raw).name,
  }));
  const indexStart = performance.now();
  const index = ToolNameIndex.of(known);
  const indexMs = performance.now() - indexStart;
  // One gateway of 5,000 tools: the recorded tools, over and over.
  const definitions = repeated<ScannedDefinition>(catalogues, SYNC_DEFINITIONS, (_slug, raw) =>
    scannedDefinition('tool', raw),
  );
  const context = scanContext({
    gatewaySlug: 'one-big-gateway',
    ownTools: definitions.map((definition) => definition.name),
    tools: index,
  });
  // Wall time, and this process's CPU time, which other work on a shared machine inflates less.
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  let findings = 0;
  for (let round = 0; round < 7; round++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    findings = 0;
    for (const definition of definitions) findings += scanDefinition(definition, context).length;
    const used = process.cpuUsage(cpu);
    cpuSamples.push((used.user + used.system) / 1000);
    samples.push(performance.now() - start);
  }
  console.log(
    `timing: index of ${known.length} tools built in ${indexMs.toFixed(0)} ms; ` +
      `${definitions.length} definitions scanned in ${median(samples).toFixed(0)} ms ` +
      `(CPU ${median(cpuSamples).toFixed(0)} ms; median of ${samples.length}, ` +
      `first ${samples[0]!.toFixed(0)} ms; ${findings} findings)`,
  );
}

const catalogues = recordedCatalogues();
report(catalogues);
timing(catalogues);
