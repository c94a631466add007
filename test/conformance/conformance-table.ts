// Reads the conformance suite's own summary off its output and turns it into one row per
// scenario. The suite prints, at the end of a run (`=== SUITE SUMMARY ===` for clients, whose
// lines also count warnings):
//
//   === SUMMARY ===
//   ✓ server-stateless: 30 passed, 0 failed
//   ✗ tools-call-error: 1 passed, 1 failed
//   ✗ auth/basic-cimd: 13 passed, 0 failed, 1 warnings
//   …
//   Not scored for 2026-07-28: 13 scenario(s) run, 11 failing. These do not affect conformance.
//     ✗ tasks-lifecycle (extension)
//
// A scenario passes when none of its checks failed, as the suite scores a requirement set: a
// warning (a SHOULD not met) is shown, not failed. The "Not scored" ones are run but do not count
// towards the requirement set.

export interface ScenarioRow {
  scenario: string;
  passed: boolean;
  checksPassed: number;
  checksFailed: number;
  /** Checks of a SHOULD the implementation did not meet. */
  warnings: number;
  /** Why the suite does not score it (extension, pending…), or undefined when it counts. */
  notScored?: string;
  /** Why the harness leaves it out: it tests what is not the implementation's part. */
  excluded?: string;
}

export interface RequirementRun {
  requirements: string;
  rows: ScenarioRow[];
}

const SUMMARY_LINE = /^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?/;
const SUMMARY_HEADINGS = ['=== SUMMARY ===', '=== SUITE SUMMARY ==='];
const NOT_SCORED_LINE = /^\s+[✓✗] (\S+) \((.+)\)\s*$/;

export function parseSummary(output: string): ScenarioRow[] {
  const lines = output.split(/\r?\n/);
  const start = Math.max(...SUMMARY_HEADINGS.map((heading) => lines.lastIndexOf(heading)));
  if (start < 0) return [];
  const rows = new Map<string, ScenarioRow>();
  let inNotScored = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('Not scored for')) inNotScored = true;
    const summary = SUMMARY_LINE.exec(line);
    if (summary && !inNotScored) {
      const [, scenario, passed, failed, warnings] = summary as unknown as [
        string,
        string,
        string,
        string,
        string | undefined,
      ];
      rows.set(scenario, {
        scenario,
        passed: Number(failed) === 0,
        checksPassed: Number(passed),
        checksFailed: Number(failed),
        warnings: Number(warnings ?? 0),
      });
    }
    const notScored = inNotScored ? NOT_SCORED_LINE.exec(line) : null;
    const row = notScored ? rows.get(notScored[1] as string) : undefined;
    if (row && notScored) row.notScored = notScored[2];
  }
  return [...rows.values()];
}

/** "37 of 37" over the scored rows the harness does not leave out. */
export function score(rows: ScenarioRow[]): { passed: number; total: number } {
  const scored = rows.filter((row) => !row.notScored && !row.excluded);
  return { passed: scored.filter((row) => row.passed).length, total: scored.length };
}

export function formatTable(runs: RequirementRun[], target: string): string {
  const out: string[] = [];
  for (const { requirements, rows } of runs) {
    const { passed, total } = score(rows);
    out.push(`\n### ${requirements} (${target}): ${passed} of ${total} pass\n`);
    out.push('| Scenario | Result | Checks passed / failed |');
    out.push('|----------|--------|------------------------|');
    for (const row of rows.filter((r) => !r.notScored && !r.excluded))
      out.push(
        `| ${row.scenario} | ${verdict(row, 'pass', '**FAIL**')} | ${row.checksPassed} / ${row.checksFailed} |`,
      );
    const excluded = rows.filter((r) => r.excluded && !r.notScored);
    if (excluded.length > 0) {
      out.push('\nScored by the suite, left out here:');
      for (const row of excluded)
        out.push(`- ${row.scenario}: ${verdict(row, 'pass', 'fail')}; ${row.excluded}`);
    }
    const extra = rows.filter((r) => r.notScored);
    if (extra.length > 0) {
      out.push('\nRun but not scored:');
      for (const row of extra)
        out.push(`- ${row.scenario} (${row.notScored}): ${verdict(row, 'pass', 'fail')}`);
    }
  }
  return out.join('\n');
}

function verdict(row: ScenarioRow, pass: string, fail: string): string {
  if (!row.passed) return fail;
  return row.warnings > 0
    ? `${pass} (${row.warnings} warning${row.warnings > 1 ? 's' : ''})`
    : pass;
}
