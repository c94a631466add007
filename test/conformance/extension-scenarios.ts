import { execFile, spawn } from 'node:child_process';
import { SUITE } from './conformance-suite';

// The extension scenarios of the conformance suite (unscored in the requirement sets, each run
// with `--scenario`), run against an upstream directly and through Portico, side by side.

/** The suite's Tasks extension (SEP-2663) server scenarios, 0.2.0-alpha.12. */
export const TASKS_SCENARIOS: readonly string[] = [
  'tasks-capability-negotiation',
  'tasks-dispatch-and-envelope',
  'tasks-lifecycle',
  'tasks-mrtr-composition',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-request-state-removal',
  'tasks-required-task-error',
  'tasks-status-notifications',
  'tasks-wire-fields',
];

/** The suite's Skills extension (SEP-2640) server scenarios, 0.2.0-alpha.12. */
export const SKILLS_SCENARIOS: readonly string[] = [
  'sep-2640-skills-directory',
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
];

/** Scenarios run at once per target: the machine is shared. */
const CONCURRENCY = 3;

export interface ScenarioResult {
  scenario: string;
  passed: number;
  total: number;
  failed: number;
  /** `pass`, `fail`, or `skipped` (the scenario ran no check). */
  verdict: 'pass' | 'fail' | 'skipped';
  /** The failed checks' lines, for the report. */
  failures: string[];
}

/** Node 22 and the suite's entry, from npx once, so that each scenario is one plain process. */
async function suiteCommand(): Promise<[string, string]> {
  const printed = await new Promise<string>((resolve, reject) =>
    execFile(
      'npx',
      [
        '-y',
        '-p',
        'node@22',
        '-p',
        SUITE,
        'node',
        '-e',
        "console.log(process.execPath);console.log(require('child_process').execSync('command -v conformance').toString().trim())",
      ],
      { timeout: 300_000 },
      (error, stdout) => (error ? reject(new Error(error.message)) : resolve(stdout)),
    ),
  );
  const [node, entry] = printed.trim().split('\n').slice(-2);
  if (!node || !entry) throw new Error(`could not find the conformance suite: ${printed}`);
  return [node, entry];
}

function runScenario(command: [string, string], url: string, scenario: string) {
  return new Promise<ScenarioResult>((resolve) => {
    const child = spawn(command[0], [command[1], 'server', '--url', url, '--scenario', scenario], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('close', () => {
      // eslint-disable-next-line no-control-regex -- the suite colours its output
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
      const counts = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(plain);
      const passed = Number(counts?.[1] ?? 0);
      const total = Number(counts?.[2] ?? 0);
      const failed = counts ? Number(counts[3]) : 1;
      const failures = plain.split('\n').filter((line) => /FAILURE|Error:/.test(line));
      resolve({
        scenario,
        passed,
        total,
        failed,
        verdict: failed > 0 ? 'fail' : total === 0 ? 'skipped' : 'pass',
        failures: counts ? failures : [plain.slice(-2000)],
      });
    });
  });
}

/** Every scenario against `url`, CONCURRENCY at a time, in the order given. */
export async function runScenarios(
  url: string,
  scenarios: readonly string[],
  command?: [string, string],
): Promise<ScenarioResult[]> {
  const suite = command ?? (await suiteCommand());
  const results: ScenarioResult[] = new Array<ScenarioResult>(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const index = next++;
      results[index] = await runScenario(suite, url, scenarios[index] as string);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

/** The suite's command for several runs. */
export const extensionSuite = suiteCommand;

/** The table of both runs; and the scenarios that pass directly but not through Portico. */
export function compareRuns(
  direct: readonly ScenarioResult[],
  through: readonly ScenarioResult[],
): { table: string; regressions: string[] } {
  const cell = (r: ScenarioResult | undefined) =>
    r ? `${r.verdict} ${r.passed}/${r.total}`.padEnd(14) : '-'.padEnd(14);
  const lines = [`${'scenario'.padEnd(32)}${'direct'.padEnd(14)}through Portico`];
  const regressions: string[] = [];
  for (const row of direct) {
    const other = through.find((r) => r.scenario === row.scenario);
    lines.push(`${row.scenario.padEnd(32)}${cell(row)}${cell(other)}`);
    if (row.verdict === 'pass' && other?.verdict !== 'pass') regressions.push(row.scenario);
  }
  return { table: lines.join('\n'), regressions };
}
