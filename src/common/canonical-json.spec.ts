import { canonicalJson } from './canonical-json';
import { JsonLimitError } from './json-value';

/** The recursive version this replaced: stored content hashes were computed with it. */
function recursiveCanonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(
            Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0,
            ),
          )
        : inner,
    ) ?? 'null'
  );
}

describe('canonicalJson', () => {
  it('writes exactly what the recursive version wrote', () => {
    const samples: unknown[] = [
      undefined,
      null,
      0,
      -1.5e-7,
      NaN,
      Infinity,
      'text "quoted" \\ \u2028 \0 \uD800',
      true,
      [],
      {},
      [undefined, () => 1, Symbol('s'), null],
      { b: 1, a: undefined, c: () => 1, d: [{ z: 1, y: { x: [2, { w: 3, v: 4 }] } }] },
      { b: 1, '10': 2, '9': 3, '-1': 4, '01': 5, A: 6, '4294967295': 7, '4294967294': 8 },
      { date: new Date(0), nested: { toJSON: (key: string) => `key ${key}` } },
      [new Date(1), new Map([[1, 2]]), new Set([1])],
      JSON.parse('{"__proto__": {"a": 1}, "constructor": 2}'),
      { inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
    ];
    for (const sample of samples)
      expect(canonicalJson(sample)).toBe(recursiveCanonicalJson(sample));
  });

  it('serialises values nested far deeper than the call stack allows', () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 20_000; i++) deep = i % 2 ? [deep] : { b: deep, a: i };
    expect(() => recursiveCanonicalJson(deep)).toThrow(RangeError);
    const text = canonicalJson(deep);
    expect(text.startsWith('[{"a":19998,"b":[{"a":19996,')).toBe(true);
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });

  it('refuses a value that refers to itself with a limit error, not a hang', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(JsonLimitError);
  });
});
