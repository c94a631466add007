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

  it('counts what pins held back and released, and the findings', () => {
    const view = syncReportView({
      added: ['n'],
      updated: [],
      removed: [],
      unchanged: 2,
      conflicts: [],
      quarantined: ['n', 'c'],
      released: ['r'],
      findings: [{ name: 'n', rule: 'hidden-text', severity: 'high', field: 'description' }],
    });
    expect(view).toMatchObject({
      quarantined: ['n', 'c'],
      released: ['r'],
      findings: [{ name: 'n', rule: 'hidden-text' }],
      summary: '1 added, 0 updated, 0 removed, 2 unchanged, 2 quarantined, 1 released, 1 finding',
    });
    expect(
      syncReportView({ added: [], updated: [], removed: [], unchanged: 0, conflicts: [] }),
    ).toMatchObject({ quarantined: [], released: [], findings: [] });
  });

  it('adds a section for each other list the upstream offers, in a fixed order', () => {
    const list = (added: string[]) => ({
      added,
      updated: [],
      removed: [],
      unchanged: 0,
      conflicts: [],
    });
    const view = syncReportView({
      ...list([]),
      resources: { ...list(['file:///a']), conflicts: [{ name: 'file:///b', reason: 'too long' }] },
      prompts: list(['greet']),
      skills: { ...list([]), quarantined: ['skill://pdf/SKILL.md'] },
    })!;
    expect(view.changed).toBe(false);
    expect(view.sections.map((section) => [section.title, section.summary])).toEqual([
      ['Prompts', '1 added, 0 updated, 0 removed, 0 unchanged'],
      ['Resources', '1 added, 0 updated, 0 removed, 0 unchanged, 1 conflict'],
      ['Skills', '0 added, 0 updated, 0 removed, 0 unchanged, 1 quarantined'],
    ]);
    expect(view.sections[1]).toMatchObject({
      entryLabel: 'Upstream URI',
      changed: true,
      review: '/admin/quarantine',
    });
    // Held skills are approved on the skills page, not in the quarantine.
    expect(view.sections[2]).toMatchObject({ key: 'skills', review: '/admin/skills' });
  });

  it('counts what the stored report left out of its lists', () => {
    const view = syncReportView({
      added: ['a', 'b'],
      updated: [],
      removed: [],
      unchanged: 0,
      conflicts: [{ name: 'x', reason: 'clash' }],
      quarantined: ['a'],
      omitted: { added: 998, conflicts: 4, quarantined: 9 },
    });
    expect(view).toMatchObject({
      changed: true,
      counts: { added: 1000, conflicts: 5, quarantined: 10, updated: 0 },
      omitted: { added: 998 },
      summary: '1000 added, 0 updated, 0 removed, 0 unchanged, 5 conflicts, 10 quarantined',
    });
  });
});
