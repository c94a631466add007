import { MAX_ROWS, resultBlock, toBlock } from './result-blocks';

describe('what the Prefab renderer draws', () => {
  it('draws a list of records as a table with every column', () => {
    expect(
      toBlock([
        { city: 'Oslo', temp: 3 },
        { city: 'Rome', wind: { kmh: 12 } },
      ]),
    ).toEqual({
      kind: 'table',
      columns: ['city', 'temp', 'wind'],
      rows: [
        ['Oslo', '3', ''],
        ['Rome', '', '{"kmh":12}'],
      ],
      omitted: 0,
    });
  });

  it('draws a record as a key-value card, nesting tables and cards', () => {
    expect(
      toBlock({ summary: { total: 2, ok: true }, items: [{ id: 1 }, { id: 2 }], note: null }),
    ).toEqual({
      kind: 'card',
      entries: [
        {
          key: 'summary',
          value: {
            kind: 'card',
            entries: [
              { key: 'total', value: { kind: 'text', text: '2' } },
              { key: 'ok', value: { kind: 'text', text: 'true' } },
            ],
          },
        },
        {
          key: 'items',
          value: { kind: 'table', columns: ['id'], rows: [['1'], ['2']], omitted: 0 },
        },
        { key: 'note', value: { kind: 'text', text: 'null' } },
      ],
    });
  });

  it('draws other lists item by item and keeps text as it is', () => {
    expect(toBlock(['a', 1, ['b']])).toEqual({
      kind: 'list',
      items: [
        { kind: 'text', text: 'a' },
        { kind: 'text', text: '1' },
        { kind: 'list', items: [{ kind: 'text', text: 'b' }], omitted: 0 },
      ],
      omitted: 0,
    });
    expect(toBlock('<img src=x onerror=alert(1)>')).toEqual({
      kind: 'text',
      text: '<img src=x onerror=alert(1)>',
    });
  });

  it('bounds what it draws', () => {
    const many = Array.from({ length: MAX_ROWS + 5 }, (_, i) => ({ i }));
    const table = toBlock(many);
    expect(table).toMatchObject({ kind: 'table', omitted: 5 });
    expect(table.kind === 'table' && table.rows).toHaveLength(MAX_ROWS);
    const deep = toBlock({ a: { b: { c: { d: { e: 1 } } } } });
    expect(JSON.stringify(deep)).toContain('"text":"{\\"e\\":1}"');
    const long = toBlock([{ text: 'x'.repeat(500) }]);
    expect(long.kind === 'table' && long.rows[0]![0]!.length).toBe(200);
  });

  it('uses the structured content of a result, else its text', () => {
    expect(resultBlock({ structuredContent: { a: 1 }, content: [] })).toEqual({
      kind: 'card',
      entries: [{ key: 'a', value: { kind: 'text', text: '1' } }],
    });
    expect(
      resultBlock({
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: '', mimeType: 'image/png' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toEqual({ kind: 'text', text: 'one\ntwo' });
  });
});
