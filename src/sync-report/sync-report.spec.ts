import { boundedReport, REPORT_ENTRIES, REPORT_TEXT, type SyncReport } from './sync-report';

const names = (count: number, prefix = 't') =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

describe('boundedReport', () => {
  it('keeps a report within the bounds as it is', () => {
    const report: SyncReport = {
      added: names(REPORT_ENTRIES),
      updated: [],
      removed: ['gone'],
      unchanged: 7,
      conflicts: [{ name: 'x', reason: 'clash' }],
      prompts: { added: ['p'], updated: [], removed: [], unchanged: 0, conflicts: [] },
    };
    expect(boundedReport(report)).toEqual(report);
  });

  it('keeps the first entries of every list, in every section, and counts the rest', () => {
    const over = REPORT_ENTRIES + 5;
    const report: SyncReport = {
      added: names(over),
      updated: [],
      removed: [],
      unchanged: 0,
      conflicts: names(over).map((name) => ({ name, reason: 'clash' })),
      quarantined: names(over, 'q'),
      consolidationDrift: names(over).map((name) => ({
        name,
        consolidatedTool: 'c',
        target: name,
        difference: 'd',
      })),
      resourceTemplates: {
        added: [],
        updated: names(over + 1, 'u'),
        removed: [],
        unchanged: 2,
        conflicts: [],
        findings: names(over).map((name) => ({ name, rule: 'r', severity: 'high', field: 'f' })),
      },
    };
    const bounded = boundedReport(report);
    expect(bounded.added).toEqual(names(REPORT_ENTRIES));
    expect(bounded.conflicts).toHaveLength(REPORT_ENTRIES);
    expect(bounded.quarantined).toEqual(names(REPORT_ENTRIES, 'q'));
    expect(bounded.consolidationDrift).toHaveLength(REPORT_ENTRIES);
    expect(bounded.omitted).toEqual({
      added: 5,
      conflicts: 5,
      quarantined: 5,
      consolidationDrift: 5,
    });
    expect(bounded.resourceTemplates).toMatchObject({
      updated: names(REPORT_ENTRIES, 'u'),
      unchanged: 2,
      omitted: { updated: 6, findings: 5 },
    });
    expect(bounded.resourceTemplates!.findings).toHaveLength(REPORT_ENTRIES);
    expect(report.added).toHaveLength(over);
  });

  it('clips long names and reasons, in names and in records', () => {
    const long = 'n'.repeat(REPORT_TEXT * 1000);
    const bounded = boundedReport({
      added: [long],
      updated: [],
      removed: [],
      unchanged: 0,
      conflicts: [{ name: long, reason: `refused: ${long}` }],
    });
    const clipped = `${'n'.repeat(REPORT_TEXT - 1)}…`;
    expect(bounded.added).toEqual([clipped]);
    expect(bounded.conflicts[0]!.name).toBe(clipped);
    expect(bounded.conflicts[0]!.reason).toHaveLength(REPORT_TEXT);
    expect(bounded.omitted).toBeUndefined();
  });
});
