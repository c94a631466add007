import { csvCell } from './audit-export';

/** The cells a spreadsheet reads from one CSV line, with `separator` as its locale's list separator. */
function cellsOf(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i]!;
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === separator) {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells;
}

describe('csvCell', () => {
  const hostile = [
    "=cmd|' /C calc'!A0",
    '+1+1',
    '-2+3',
    '@SUM(A1)',
    '\t=1+1',
    '\r=1+1',
    '  =1+1',
    '"=1+1',
    "a;=cmd|' /C calc'!A0;",
    'a,=1+2,b',
    'a\t=1+2',
    'line\n=3+3',
    'line\r\n@x',
    'x";=1+1;"',
    { note: '=1+1' },
  ];

  it.each([',', ';', '\t'])(
    'leaves no cell a spreadsheet would run, read with %j as the separator',
    (separator) => {
      for (const value of hostile) {
        const line = ['ok', csvCell(value), csvCell(-32602)].join(',');
        for (const cell of cellsOf(line, separator).flatMap((text) => text.split(/\r?\n|\r/)))
          expect([value, cell, /^\s*[=+\-@]/.test(cell) && cell !== '-32602']).toEqual([
            value,
            cell,
            false,
          ]);
      }
    },
  );

  it('keeps what it was given, readable back from the quoted cell', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(csvCell('=1+1')).toBe(`"'=1+1"`);
    expect(csvCell(-32602)).toBe('-32602');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });
});
