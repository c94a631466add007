import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { formatTable, parseSummary, type RequirementRun, score } from './conformance-table';
import { runSuite } from './conformance-suite';
import { projectRoot } from '../../src/common/project-root';

// Portico as the client of the MCP conformance suite's client scenarios:
//
//   npm run conformance -- client [--requirements 2026-07-28] [suite args]
//
// The suite starts a test server per scenario and runs `<command> <its URL>` with the scenario's
// name in MCP_CONFORMANCE_SCENARIO. The command is test/conformance/conformance-client.ts, which is
// `portico upstream` (the gateway's own upstream code: era probe, headers, OAuth) told what each
// scenario's caller asks. The suite starts every scenario at once, so the command is bundled first
// (esbuild, packages left to node_modules) to start fast. `--requirements` picks the frozen
// requirement sets (both by default), one run each; other arguments go to the suite as they are
// (`--scenario auth/scope-step-up --verbose`); `--scenario` or `--suite` replace the sets.
//
// A scenario that tests what a gateway leaves to the client downstream of it is run, shown, and
// left out of the score, with the reason (EXCLUDED).

/** The checkout, from the sources or from the tests' build of them (compiled-sources.ts). */
const ROOT = projectRoot();
const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'];
const OWN_SELECTION = ['--scenario', '--suite', '--spec-version'];
/** Scored scenarios that are not Portico's part, and why. */
export const EXCLUDED: Readonly<Record<string, string>> = {
  'elicitation-sep1034-client-defaults':
    'the client that answers an elicitation fills in its schema defaults; Portico relays elicitations to the client downstream and its answer back unchanged',
};
/** Every scenario runs at once on a machine that may be small: time enough for each. */
const SCENARIO_TIMEOUT_MS = 120_000;

export async function runClientConformance(argv: string[]): Promise<number> {
  const requirements: string[] = [];
  const suiteArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--requirements') requirements.push(...(argv[++i] ?? '').split(','));
    else suiteArgs.push(argv[i] as string);
  }
  const ownSelection = suiteArgs.some((arg) => OWN_SELECTION.includes(arg));
  if (requirements.length === 0 && !ownSelection) requirements.push(...REQUIREMENT_SETS);
  const dir = mkdtempSync(join(tmpdir(), 'portico-conformance-client-'));
  try {
    const client = join(dir, 'conformance-client.js');
    await build({
      entryPoints: [join(ROOT, 'test', 'conformance', 'conformance-client.ts')],
      outfile: client,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      tsconfig: join(ROOT, 'tsconfig.json'),
      logLevel: 'warning',
    });
    // The bundle lives outside the project: its packages come from the project's node_modules.
    const env = { ...process.env, NODE_PATH: join(ROOT, 'node_modules'), LOG_LEVEL: 'warn' };
    const runs: RequirementRun[] = [];
    let failed = false;
    for (const set of requirements.length > 0 ? requirements : [undefined]) {
      const args = [
        'client',
        '--command',
        `node ${client}`,
        '--timeout',
        String(SCENARIO_TIMEOUT_MS),
        ...(set ? ['--requirements', set] : []),
        ...suiteArgs,
      ];
      const { output, code } = await runSuite(args, env);
      const rows = parseSummary(output).map((row) =>
        EXCLUDED[row.scenario] ? { ...row, excluded: EXCLUDED[row.scenario] } : row,
      );
      // A single scenario prints its checks and no summary: its exit code is the verdict.
      if (rows.length === 0) failed ||= code !== 0;
      else runs.push({ requirements: set ? `--requirements ${set}` : suiteArgs.join(' '), rows });
    }
    if (runs.length > 0) console.log(formatTable(runs, 'Portico as the client'));
    const failing = runs.some(({ rows }) => {
      const { passed, total } = score(rows);
      return passed < total;
    });
    return failing || failed ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
