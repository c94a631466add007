import { type ListKind } from '../directory/scope-directory';
import { movedLists, seenNow } from './list-versions';

const versions = (tools: string, resources = 'r', prompts = 'p') => ({
  version: (kind: ListKind) => ({ tools, resources, prompts })[kind],
});

describe('movedLists', () => {
  it('names the lists whose version moved, once', () => {
    const seen = seenNow(versions('t1'));
    expect(movedLists(seen, versions('t1'))).toEqual([]);
    expect(movedLists(seen, versions('t2', 'r2'))).toEqual(['tools', 'resources']);
    expect(movedLists(seen, versions('t2', 'r2'))).toEqual([]);
  });

  it('moves every list, once, when the scope is gone', () => {
    const seen = seenNow(versions('t1'));
    expect(movedLists(seen, null)).toEqual(['tools', 'resources', 'prompts']);
    expect(movedLists(seen, null)).toEqual([]);
  });

  it('moves every list a client has not seen yet', () => {
    expect(movedLists(new Map(), versions('t1'))).toEqual(['tools', 'resources', 'prompts']);
  });
});
