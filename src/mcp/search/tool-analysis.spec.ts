import { Action } from './ranking/intent';
import { ToolAnalysisCache } from './tool-analysis';

const definition = (description: string) => ({
  name: 'gw-read_file',
  description,
  inputSchema: { type: 'object' as const },
});

describe('ToolAnalysisCache', () => {
  it('analyses a tool once per content, and again when it changes', () => {
    const cache = new ToolAnalysisCache(null);
    const first = cache.analyse('t1', definition('Read a file'));
    expect(cache.analyse('t1', definition('Read a file'))).toBe(first);
    expect(cache.misses).toBe(1);
    const changed = cache.analyse('t1', definition('Read a whole file'));
    expect(changed).not.toBe(first);
    expect(changed.contentHash).not.toBe(first.contentHash);
    expect(cache.analyse('t2', definition('Read a file'))).not.toBe(first);
    expect(cache.misses).toBe(3);
    expect(first.counts.terms).toEqual(expect.arrayContaining(['read', 'file']));
    expect(first.vector).toBeNull();
    expect(first.providerHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads the verb and name terms from the upstream name, not the gateway slug', () => {
    const cache = new ToolAnalysisCache(null);
    const tool = { ...definition('Search the web'), name: 'brave-search-post_summary' };
    const analysis = cache.analyse('t1', tool, 'post_summary');
    expect(analysis.action).toBe(Action.Send);
    expect(analysis.name).toEqual(['post', 'summari']);
    expect(cache.analyse('t2', tool).action).toBe(Action.Search);
  });

  it('stays bounded: entries no build asked for since the last turnover are dropped', () => {
    const cache = new ToolAnalysisCache(null, 2);
    const kept = cache.analyse('a', definition('a'));
    cache.analyse('b', definition('b'));
    cache.analyse('c', definition('c'));
    // "a" is in the previous generation: still found, and brought forward.
    expect(cache.analyse('a', definition('a'))).toBe(kept);
    cache.analyse('d', definition('d'));
    cache.analyse('e', definition('e'));
    const misses = cache.misses;
    cache.analyse('b', definition('b'));
    expect(cache.misses).toBe(misses + 1);
  });
});
