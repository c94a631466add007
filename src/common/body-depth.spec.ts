import { MAX_BODY_DEPTH, nestingDepth } from './body-depth';

describe('nestingDepth', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestingDepth('text')).toBe(0);
    expect(nestingDepth({})).toBe(1);
    expect(nestingDepth({ a: [1, { b: null }] })).toBe(3);
  });

  it('walks a value far deeper than the call stack allows, stopping past the limit', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(nestingDepth(deep)).toBe(MAX_BODY_DEPTH + 1);
  });
});
