import { syncReportView } from './sync-report-view';

describe('syncReportView', () => {
  it('summarises a diff', () => {
    const view = syncReportView({
      added: ['a', 'b'],
      updated: ['c'],
      removed: [],
      unchanged: 5,
      conflicts: [{ name: 'x', reason: 'clash' }],
    });
    expect(view).toMatchObject({
      changed: true,
      warnings: [],
      summary: '2 added, 1 updated, 0 removed, 5 unchanged, 1 conflict',
    });
  });

  it('says when nothing changed, and when there was no sync', () => {
    const view = syncReportView({
      added: [],
      updated: [],
      removed: [],
      unchanged: 3,
      conflicts: [],
      warnings: [
        { name: 'a', reason: 'cut' },
        { name: 'b', reason: 'cut' },
      ],
    });
    expect(view).toMatchObject({
      changed: false,
      summary: '0 added, 0 updated, 0 removed, 3 unchanged, 2 warnings',
    });
    expect(syncReportView(null)).toBeNull();
  });
});
