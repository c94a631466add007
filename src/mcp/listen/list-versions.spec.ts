import { type UpstreamList } from '../../events/event-bus';
import { movedLists, seenNow } from './list-versions';

/** Versions of a scope whose tools and prompts hold members of gateway g1. */
const versions = (tools: string, resources = 'r', prompts = 'p') => ({
  version: (kind: UpstreamList) => ({ tools, resources, prompts })[kind],
  holds: (kind: UpstreamList, gatewayId: string) => kind !== 'resources' && gatewayId === 'g1',
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

  it("moves a list an upstream said changed when it holds that upstream's members, its version or not", () => {
    const seen = seenNow(versions('t1'));
    const said = (gatewayId: string, lists: UpstreamList[]) => [{ gatewayId, lists }];
    expect(movedLists(seen, versions('t1'), said('g1', ['tools', 'resources']))).toEqual(['tools']);
    expect(movedLists(seen, versions('t1'), said('g2', ['tools', 'prompts']))).toEqual([]);
    expect(movedLists(seen, versions('t2', 'r1'), said('g1', ['prompts']))).toEqual([
      'tools',
      'resources',
      'prompts',
    ]);
    expect(movedLists(seen, null, said('g1', ['tools']))).toEqual([
      'tools',
      'resources',
      'prompts',
    ]);
  });

  it('moves every list a client has not seen yet', () => {
    expect(movedLists(new Map(), versions('t1'))).toEqual(['tools', 'resources', 'prompts']);
  });
});
