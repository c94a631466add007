import { NO_PINS } from '../pinning/pin-plan';
import { admitToolDefinition, DESCRIPTION_LIMIT } from '../tools/tool-definition';
import { contentHash } from '../tools/tool-hash';
import {
  diffChangesCatalog,
  diffToolLists,
  type StoredToolDigest,
  syncReportOf,
} from './list.differ';

function wire(name: string, extra: Record<string, unknown> = {}) {
  return { name, description: `${name} tool`, inputSchema: { type: 'object' }, ...extra };
}

/** A stored tool as a previous sync of `raw` would have left it. */
function stored(id: string, raw: Record<string, unknown>): StoredToolDigest {
  const admission = admitToolDefinition(raw);
  if (!admission.ok) throw new Error(admission.reason);
  return { id, originalName: admission.tool.name, contentHash: contentHash(admission.tool) };
}

describe('diffToolLists', () => {
  it('adds everything to an empty catalogue', async () => {
    const diff = await diffToolLists([], [wire('a'), wire('b')]);
    expect(diff.added.map((tool) => tool.name)).toEqual(['a', 'b']);
    expect(diff).toMatchObject({ updated: [], removed: [], unchanged: 0, conflicts: [] });
    expect(diffChangesCatalog(diff)).toBe(true);
  });

  it('sorts tools into added, updated, removed and unchanged by name and content', async () => {
    const diff = await diffToolLists(
      [stored('1', wire('same')), stored('2', wire('changed')), stored('3', wire('gone'))],
      [wire('same'), wire('changed', { description: 'new text' }), wire('new')],
    );
    expect(diff.added.map((tool) => tool.name)).toEqual(['new']);
    expect(diff.updated).toEqual([
      {
        id: '2',
        definition: expect.objectContaining({ name: 'changed', description: 'new text' }),
      },
    ]);
    expect(diff.removed).toEqual([{ id: '3', name: 'gone' }]);
    expect(diff.unchanged).toBe(1);
  });

  it.each([
    ['input schema', { inputSchema: { type: 'object', properties: { x: { type: 'string' } } } }],
    ['output schema', { outputSchema: { type: 'object' } }],
    ['annotations', { annotations: { readOnlyHint: true } }],
    ['_meta', { _meta: { ui: { resourceUri: 'ui://x/y.html' } } }],
  ])('sees a change of the %s', async (_part, change) => {
    const diff = await diffToolLists([stored('1', wire('t'))], [wire('t', change)]);
    expect(diff.updated.map((tool) => tool.id)).toEqual(['1']);
  });

  it('ignores key order', async () => {
    const before = wire('t', { inputSchema: { type: 'object', properties: { a: {}, b: {} } } });
    const after = wire('t', { inputSchema: { properties: { b: {}, a: {} }, type: 'object' } });
    const diff = await diffToolLists([stored('1', before)], [after]);
    expect(diff).toMatchObject({ unchanged: 1, updated: [] });
    expect(diffChangesCatalog(diff)).toBe(false);
  });

  it('reports a name listed twice and keeps the first entry', async () => {
    const diff = await diffToolLists(
      [],
      [wire('dup', { description: 'first' }), wire('dup'), wire('x')],
    );
    expect(diff.added.map((tool) => [tool.name, tool.description])).toEqual([
      ['dup', 'first'],
      ['x', 'x tool'],
    ]);
    expect(diff.conflicts).toEqual([
      { name: 'dup', reason: expect.stringMatching(/more than once/) },
    ]);
  });

  it('refuses malformed tools one by one and applies the rest', async () => {
    const diff = await diffToolLists(
      [],
      [wire('ok'), wire('bad-schema', { inputSchema: 'object' }), wire('bad name'), 42],
    );
    expect(diff.added.map((tool) => tool.name)).toEqual(['ok']);
    expect(diff.conflicts).toEqual([
      { name: 'bad-schema', reason: expect.stringContaining('inputSchema') },
      { name: 'bad name', reason: expect.stringContaining('MCP tool-name rule') },
      { name: '42', reason: 'the definition is not an object' },
    ]);
  });

  it('removes a stored tool whose upstream definition is now refused, and says why', async () => {
    const diff = await diffToolLists([stored('1', wire('t'))], [wire('t', { inputSchema: [] })]);
    expect(diff.removed).toEqual([{ id: '1', name: 't' }]);
    expect(diff.conflicts.map((conflict) => conflict.name)).toEqual(['t']);
  });

  it('keeps a truncated description unchanged on the next sync, with its warning', async () => {
    const long = wire('long', { description: 'd'.repeat(DESCRIPTION_LIMIT + 10) });
    const diff = await diffToolLists([stored('1', long)], [long]);
    expect(diff.unchanged).toBe(1);
    expect(diff.warnings).toEqual([
      { name: 'long', reason: expect.stringMatching(/^description truncated/) },
    ]);
  });
});

describe('syncReportOf', () => {
  it('lists original names in order, with the writer’s refusals as conflicts', async () => {
    const diff = await diffToolLists(
      [stored('1', wire('z-old')), stored('2', wire('b')), stored('3', wire('a'))],
      [
        wire('b', { description: 'changed' }),
        wire('a', { description: 'changed' }),
        wire('y'),
        wire('x'),
        wire('c', { title: 'x'.repeat(300) }),
      ],
    );
    const report = syncReportOf(
      diff,
      (tool) => tool.name,
      ['y', 'x'],
      [{ name: 'c', reason: 'clash' }],
      NO_PINS,
    );
    expect(report).toEqual({
      added: ['x', 'y'],
      updated: ['a', 'b'],
      removed: ['z-old'],
      unchanged: 0,
      conflicts: [{ name: 'c', reason: 'clash' }],
      warnings: [],
    });
  });
});
