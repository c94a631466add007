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

  it('reads a client suite summary, with its warnings, and scores without what is left out', () => {
    const rows = parseSummary(`
=== SUITE SUMMARY ===

✓ tools_call: 2 passed, 0 failed
✗ auth/basic-cimd: 13 passed, 0 failed, 1 warnings
✗ elicitation-sep1034-client-defaults: 0 passed, 5 failed
✗ auth/dpop: 10 passed, 3 failed

Total: 25 passed, 8 failed, 1 warnings

Not scored for 2025-11-25: 1 scenario(s) run, 1 failing. These do not affect conformance.
  ✗ auth/dpop (extension)
`).map((row) =>
      row.scenario === 'elicitation-sep1034-client-defaults'
        ? { ...row, excluded: 'a downstream client’s part' }
        : row,
    );
    expect(rows.map((row) => [row.scenario, row.passed, row.warnings])).toEqual([
      ['tools_call', true, 0],
      ['auth/basic-cimd', true, 1],
      ['elicitation-sep1034-client-defaults', false, 0],
      ['auth/dpop', false, 0],
    ]);
    expect(score(rows)).toEqual({ passed: 2, total: 2 });
    const table = formatTable([{ requirements: '--requirements 2025-11-25', rows }], 'client');
    expect(table).toContain('### --requirements 2025-11-25 (client): 2 of 2 pass');
    expect(table).toContain('| auth/basic-cimd | pass (1 warning) | 13 / 0 |');
    expect(table).toContain(
      '- elicitation-sep1034-client-defaults: fail; a downstream client’s part',
    );
    expect(table).not.toContain('| elicitation-sep1034-client-defaults |');
  });

  it('finds nothing when the suite printed no summary', () => {
    expect(parseSummary('Test Results:\nPassed: 2/2, 0 failed, 0 warnings\n')).toEqual([]);
  });
});
