import { writeFileSync } from 'node:fs';
import { type ChaosConfig } from './config';
import { type Summary } from './load';

export type Verdict = 'PASS' | 'FAIL' | 'SKIP';

/** One line of the final table. */
export interface Row {
  id: string;
  scenario: string;
  load: string;
  figures: string[];
  verdict: Verdict;
  /** The checks of the issue's "Done when" that failed, or why it was skipped. */
  why: string[];
}

/** A check against the issue's "Done when": passes, and what it says when it does not. */
export type Check = [passed: boolean, failure: string];

export function row(
  id: string,
  scenario: string,
  load: string,
  figures: string[],
  checks: Check[],
): Row {
  const why = checks.filter(([passed]) => !passed).map(([, failure]) => failure);
  return { id, scenario, load, figures, verdict: why.length ? 'FAIL' : 'PASS', why };
}

export const skipped = (id: string, scenario: string, why: string): Row => ({
  id,
  scenario,
  load: '',
  figures: [],
  verdict: 'SKIP',
  why: [why],
});

export const failedToRun = (id: string, scenario: string, error: unknown): Row => ({
  id,
  scenario,
  load: '',
  figures: [],
  verdict: 'FAIL',
  why: [`the scenario did not finish: ${(error as Error).message ?? String(error)}`],
});

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return 'n/a';
  if (value >= 10_000) return `${(value / 1000).toFixed(0)} s`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)} s`;
  return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

export const count = (value: number) => value.toLocaleString('en-US');

/** "8,758 ok / 0 failed, p50 3.1 ms, p99 12 ms" and the commonest error. */
export function calls(summary: Summary): string {
  const errors = summary.errors ? ` (${summary.errors})` : '';
  const hung = summary.hung ? `, ${summary.hung} over 5 s` : '';
  return `${count(summary.ok)} ok / ${count(summary.failed)} failed, p50 ${ms(summary.p50)}, p99 ${ms(summary.p99)}, max ${ms(summary.max)}${hung}${errors}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdown(rows: Row[], config: ChaosConfig, startedAt: Date, endedAt: Date): string {
  const lines = [
    `# Portico fault suite (\`npm run chaos\`)`,
    '',
    `Run ${startedAt.toISOString()} to ${endedAt.toISOString()}: PostgreSQL outages ${config.outageSeconds} s, Redis outages ${config.redisOutageSeconds} s, soak ${config.soakMinutes} min, UPSTREAM_TIMEOUT_MS ${config.upstreamTimeoutMs}, ${config.loadSessions} sessions pausing ${config.callPauseMs} ms between calls.`,
    '',
    '| # | Scenario | Load | Figures | Verdict |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.id} | ${cell(r.scenario)} | ${cell(r.load)} | ${cell(r.figures.join('; '))} | **${r.verdict}**${r.why.length ? `: ${cell(r.why.join('; '))}` : ''} |`,
    ),
    '',
    `${rows.filter((r) => r.verdict === 'PASS').length} passed, ${rows.filter((r) => r.verdict === 'FAIL').length} failed, ${rows.filter((r) => r.verdict === 'SKIP').length} skipped.`,
    '',
  ];
  return lines.join('\n');
}

export function writeReport(file: string, text: string): void {
  writeFileSync(file, text);
}
