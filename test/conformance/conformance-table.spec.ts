import { formatTable, parseSummary, score } from './conformance-table';

// The tail of a real run of the suite (0.2.0-alpha.12), trimmed.
const OUTPUT = `
=== Running scenario: tools-call-error ===
✓ not a summary line: 1 passed, 0 failed

=== SUMMARY ===
✓ server-stateless: 30 passed, 0 failed
✗ tools-call-error: 1 passed, 1 failed
✗ tasks-lifecycle: 1 passed, 8 failed
✓ http-header-validation: 14 passed, 0 failed

Total: 46 passed, 9 failed

Not scored for 2026-07-28: 2 scenario(s) run, 1 failing. These do not affect conformance.
  ✗ tasks-lifecycle (extension)
  ✓ http-header-validation (pending)
`;

describe('conformance table', () => {
  it('reads the summary, keeps unscored scenarios apart and scores the rest', () => {
    const rows = parseSummary(OUTPUT);
    expect(rows.map((row) => [row.scenario, row.passed, row.notScored])).toEqual([
      ['server-stateless', true, undefined],
      ['tools-call-error', false, undefined],
      ['tasks-lifecycle', false, 'extension'],
      ['http-header-validation', true, 'pending'],
    ]);
    expect(score(rows)).toEqual({ passed: 1, total: 2 });
    const table = formatTable([{ requirements: '--requirements 2026-07-28', rows }], 'directly');
    expect(table).toContain('### --requirements 2026-07-28 (directly): 1 of 2 pass');
    expect(table).toContain('| tools-call-error | **FAIL** | 1 / 1 |');
    expect(table).toContain('- tasks-lifecycle (extension): fail');
  });

  it('finds nothing when the suite printed no summary', () => {
    expect(parseSummary('Test Results:\nPassed: 2/2, 0 failed, 0 warnings\n')).toEqual([]);
  });
});
