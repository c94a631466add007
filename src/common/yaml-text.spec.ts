import { parseYamlText, YamlTextError } from './yaml-text';

describe('parseYamlText', () => {
  it('reads YAML and JSON, aliases expanded', () => {
    expect(parseYamlText('a: &x {b: [1, 2]}\nc: *x\n', { uniqueKeys: true })).toEqual({
      a: { b: [1, 2] },
      c: { b: [1, 2] },
    });
    expect(parseYamlText('{"a": [1, {"b": null}]}', { uniqueKeys: true })).toEqual({
      a: [1, { b: null }],
    });
  });

  it('refuses aliases of empty collections that expand past ten values a character, at once', () => {
    const n = 20_000;
    const text = `x-a: &a [${Array(n).fill('{}').join(',')}]\nx-b: [${Array(n).fill('*a').join(',')}]\n`;
    const started = Date.now();
    expect(() => parseYamlText(text, { uniqueKeys: false })).toThrow(
      /its aliases expand it to more than \d+ values/,
    );
    // The library's own walk took 24 s on this text.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses nested aliases (billion laughs)', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const [name, previous] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    expect(() => parseYamlText(lines.join('\n'), { uniqueKeys: true })).toThrow(YamlTextError);
  });

  it('finds a duplicate key among 30,000 in linear time, where asked', () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `k${i}: 1`);
    const started = Date.now();
    expect(() => parseYamlText([...keys, 'k7: 2'].join('\n'), { uniqueKeys: true })).toThrow(
      "the key 'k7' is given twice",
    );
    expect(parseYamlText([...keys, 'k7: 2'].join('\n'), { uniqueKeys: false })).toMatchObject({
      k7: 2,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('says what is not YAML', () => {
    expect(() => parseYamlText('a: [\n', { uniqueKeys: true })).toThrow(YamlTextError);
  });
});
