import { mergePromotions, promotedNames, samePromotions } from './promotions';

describe('promotions', () => {
  it('start with the names of the first search, sorted and unique', () => {
    expect(mergePromotions(null, 'h1', ['b', 'a', 'b'])).toEqual({
      catalogHash: 'h1',
      names: ['a', 'b'],
    });
  });

  it('merge names under the same catalogue hash', () => {
    const first = mergePromotions(null, 'h1', ['b']);
    expect(mergePromotions(first, 'h1', ['c', 'a', 'b'])).toEqual({
      catalogHash: 'h1',
      names: ['a', 'b', 'c'],
    });
  });

  it('replace names under a new catalogue hash', () => {
    const first = mergePromotions(null, 'h1', ['a', 'b']);
    expect(mergePromotions(first, 'h2', ['c'])).toEqual({ catalogHash: 'h2', names: ['c'] });
  });

  it('do not change the promotions they merge', () => {
    const first = mergePromotions(null, 'h1', ['a']);
    mergePromotions(first, 'h1', ['b']);
    expect(first).toEqual({ catalogHash: 'h1', names: ['a'] });
  });

  it('apply only under the catalogue hash they were made under', () => {
    const stored = { catalogHash: 'h1', names: ['a', 'b'] };
    expect([...promotedNames(stored, 'h1')]).toEqual(['a', 'b']);
    expect(promotedNames(stored, 'h2').size).toBe(0);
    expect(promotedNames(null, 'h1').size).toBe(0);
  });

  it('compare equal when hash and names are equal', () => {
    const a = { catalogHash: 'h1', names: ['a', 'b'] };
    expect(samePromotions(a, { catalogHash: 'h1', names: ['a', 'b'] })).toBe(true);
    expect(samePromotions(a, { catalogHash: 'h2', names: ['a', 'b'] })).toBe(false);
    expect(samePromotions(a, { catalogHash: 'h1', names: ['a'] })).toBe(false);
    expect(samePromotions(a, { catalogHash: 'h1', names: ['a', 'c'] })).toBe(false);
    expect(samePromotions(a, null)).toBe(false);
    expect(samePromotions(null, null)).toBe(true);
  });

  it('keep at most `limit` names, those just promoted first', () => {
    const full = mergePromotions(null, 'h1', ['a', 'b', 'c'], 3);
    expect(mergePromotions(full, 'h1', ['z'], 3)).toEqual({
      catalogHash: 'h1',
      names: ['a', 'b', 'z'],
    });
    expect(mergePromotions(null, 'h1', ['d', 'c', 'b', 'a'], 3).names).toEqual(['b', 'c', 'd']);
  });
});
