import {
  JsonLimitError,
  nestingDepth,
  rewriteJson,
  someString,
  textNestsDeeper,
} from './json-value';

function deepArray(depth: number): unknown[] {
  let deep: unknown[] = [];
  for (let i = 1; i < depth; i++) deep = [deep];
  return deep;
}

describe('nestingDepth', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestingDepth('text')).toBe(0);
    expect(nestingDepth({})).toBe(1);
    expect(nestingDepth({ a: [1, { b: null }] })).toBe(3);
  });

  it('walks a value far deeper than the call stack allows, stopping past the limit', () => {
    expect(nestingDepth(deepArray(200_000), 64)).toBe(65);
    expect(nestingDepth(deepArray(64), 64)).toBe(64);
  });
});

describe('textNestsDeeper', () => {
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(textNestsDeeper('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(textNestsDeeper('{"a":[{"b":[]}]}', 3)).toBe(true);
    expect(textNestsDeeper('["[[[[", "\\"", "{{{{"]', 1)).toBe(false);
    expect(textNestsDeeper('["\\\\", [[]]]', 2)).toBe(true);
    expect(textNestsDeeper(`${'['.repeat(65)}${']'.repeat(65)}`, 64)).toBe(true);
    expect(textNestsDeeper('[[],[],[],[]]', 2)).toBe(false);
  });
});

describe('someString', () => {
  it('finds strings in values, object keys, and deep down', () => {
    expect(someString({ a: ['x', { b: 'needle' }] }, (s) => s === 'needle')).toBe(true);
    expect(someString({ needle: 1 }, (s) => s === 'needle')).toBe(true);
    expect(someString({ a: ['x', 1, null] }, (s) => s === 'needle')).toBe(false);
    const deep = deepArray(50_000);
    deep.push('needle');
    expect(someString(deep, (s) => s === 'needle')).toBe(true);
  });
});

describe('rewriteJson', () => {
  it('copies, replacing what the rewrite returns instead, and leaves the original alone', () => {
    const original = { keep: [1, { secret: 'x', other: 'y' }], secret: { nested: true } };
    const copy = rewriteJson(original, (value, key) => (key === 'secret' ? '[cut]' : value));
    expect(copy).toEqual({ keep: [1, { secret: '[cut]', other: 'y' }], secret: '[cut]' });
    expect(original.secret).toEqual({ nested: true });
  });

  it('keeps a __proto__ key as a member, never as the prototype', () => {
    const copy = rewriteJson(JSON.parse('{"__proto__": {"polluted": true}}'), (value) => value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copies a value nested far deeper than the call stack allows', () => {
    const copy = rewriteJson(deepArray(50_000), (value) => value);
    expect(nestingDepth(copy)).toBe(50_000);
  });

  it('ends a walk of a value that refers to itself with a limit error', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(() => rewriteJson(cyclic, (value) => value)).toThrow(JsonLimitError);
  });
});
