import { expand } from './synonyms';
import { stem } from '../../../common/terms';

describe('expand', () => {
  it('reaches the other words of the term’s groups at the given weight, after the term itself', () => {
    const expansions = expand(stem('delete'), 0.5);
    expect(expansions[0]).toEqual({ term: stem('delete'), weight: 1 });
    expect(expansions).toContainEqual({ term: stem('remove'), weight: 0.5 });
    expect(expansions).toContainEqual({ term: stem('drop'), weight: 0.5 });
    expect(expansions.filter((e) => e.term === stem('delete'))).toHaveLength(1);
  });

  it('is symmetric: a word reaches those that reach it', () => {
    expect(expand(stem('folder'), 0.5)).toContainEqual({ term: stem('directory'), weight: 0.5 });
    expect(expand(stem('directory'), 0.5)).toContainEqual({ term: stem('folder'), weight: 0.5 });
  });

  it('gives the term alone for an unknown word or a zero weight', () => {
    expect(expand('zzqx', 0.5)).toEqual([{ term: 'zzqx', weight: 1 }]);
    expect(expand(stem('delete'), 0)).toEqual([{ term: stem('delete'), weight: 1 }]);
  });
});
