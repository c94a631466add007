import { Alias } from 'yaml';
import { parseYamlText, YamlTextError } from './yaml-text';

const parsed = (text: string) => parseYamlText(text, { uniqueKeys: true });

describe('parseYamlText', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reads YAML and JSON, aliases expanded', () => {
    expect(parsed('a: &x {b: [1, 2]}\nc: *x\n')).toEqual({ a: { b: [1, 2] }, c: { b: [1, 2] } });
    expect(parsed('{"a": [1, {"b": null}]}')).toEqual({ a: [1, { b: null }] });
    expect(parsed('')).toBeNull();
    expect(parsed('[a: 1, b]')).toEqual([{ a: 1 }, 'b']);
    expect(parsed('null: 1')).toEqual({ '': 1 });
  });

  it('ties an alias to the last anchor of its name before it', () => {
    expect(parsed('a: &x 1\nb: *x\nc: &x 2\nd: *x\n')).toEqual({ a: 1, b: 1, c: 2, d: 2 });
  });

  it("merges a YAML 1.1 document's merge keys, keys given beside them winning", () => {
    const text = '%YAML 1.1\n---\na: &a {p: 1, q: 1}\nb: {<<: *a, q: 2}\nc: {q: 3, <<: [*a]}\n';
    expect(parsed(text)).toEqual({ a: { p: 1, q: 1 }, b: { p: 1, q: 2 }, c: { q: 3, p: 1 } });
  });

  it('keeps __proto__ as an own key, as JSON.parse does', () => {
    const value = parsed('__proto__: {polluted: true}\n') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('resolves every alias itself, never by the library, whose resolution scans the document', () => {
    // 100,000 aliases of one scalar: each resolved by the library walked the whole document
    // (240 KB of them held a replica for three minutes).
    const resolve = jest.spyOn(Alias.prototype, 'resolve');
    const value = parsed(`a: &a 1\nb: [${Array(100_000).fill('*a').join(',')}]\n`) as {
      b: number[];
    };
    expect(value.b).toHaveLength(100_000);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('refuses aliases of empty collections that expand past ten values a character', () => {
    const n = 20_000;
    const text = `x-a: &a [${Array(n).fill('{}').join(',')}]\nx-b: [${Array(n).fill('*a').join(',')}]\n`;
    expect(() => parseYamlText(text, { uniqueKeys: false })).toThrow(
      /its aliases expand it to more than \d+ values/,
    );
  });

  it('refuses nested aliases (billion laughs)', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const [name, previous] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    expect(() => parsed(lines.join('\n'))).toThrow(YamlTextError);
  });

  it('refuses an alias that holds itself, names no anchor before it, or a key that is a collection', () => {
    expect(() => parsed('a: &a [*a]')).toThrow('an alias refers to a node that holds it');
    expect(() => parsed('a: *b\nc: &b 1')).toThrow('the alias *b names no anchor before it');
    expect(() => parsed('? [1]\n: 2')).toThrow('a key is a collection');
  });

  it('finds a duplicate key among 30,000, where asked', () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `k${i}: 1`);
    expect(() => parsed([...keys, 'k7: 2'].join('\n'))).toThrow("the key 'k7' is given twice");
    expect(parseYamlText([...keys, 'k7: 2'].join('\n'), { uniqueKeys: false })).toMatchObject({
      k7: 2,
    });
  });

  it('says what is not YAML', () => {
    expect(() => parsed('a: [\n')).toThrow(YamlTextError);
  });
});
