import {
  nameSkeleton,
  oneEditApart,
  plainName,
  scanContext,
  ToolNameIndex,
} from './tool-name-index';

describe('name forms', () => {
  it('reads names without case or separators', () => {
    expect(plainName('List-Issues')).toBe('listissues');
    expect(plainName('list_issues')).toBe(plainName('listIssues'));
  });

  it('folds lookalike characters into one skeleton', () => {
    const skeleton = nameSkeleton('list_files');
    for (const lookalike of ['Iist_files', '1ist_files', 'list_fi1es', 'l\u0456st_files'])
      expect(nameSkeleton(lookalike)).toBe(skeleton);
    expect(nameSkeleton('mail')).not.toBe(nameSkeleton('mall'));
    expect(nameSkeleton('rnodel')).toBe(nameSkeleton('model'));
  });

  it('tells one edit from two', () => {
    for (const [a, b] of [
      ['github', 'githib'],
      ['github', 'gitub'],
      ['github', 'githubb'],
      ['github', 'gihtub'],
    ])
      expect(oneEditApart(a!, b!)).toBe(true);
    for (const [a, b] of [
      ['github', 'github'],
      ['github', 'gitlab'],
      ['github', 'hubgit'],
      ['abcd', 'bcde'],
    ])
      expect(oneEditApart(a!, b!)).toBe(false);
  });
});

describe('ToolNameIndex', () => {
  const index = ToolNameIndex.of([
    { gatewaySlug: 'github', name: 'create_issue' },
    { gatewaySlug: 'gitlab', name: 'create_issue' },
    { gatewaySlug: 'google-maps', name: 'maps_geocode' },
    { gatewaySlug: 'weather', name: 'get_forecast' },
  ]);

  it('finds a tool of another gateway by name or virtual name, never one of its own', () => {
    expect(index.referencedTool('get_forecast', 'github')).toEqual(
      expect.objectContaining({ gatewaySlug: 'weather', name: 'get_forecast' }),
    );
    expect(index.referencedTool('get_forecast', 'weather')).toBeNull();
    expect(index.referencedTool('google-maps-maps_geocode', 'weather')).toEqual(
      expect.objectContaining({ gatewaySlug: 'google-maps', name: 'maps_geocode' }),
    );
    expect(index.referencedTool('github_create_issue', 'github')).toBeNull();
  });

  it('finds gateways one edit from a word, and their tools', () => {
    expect(index.gatewaysOneEditFrom('githib').sort()).toEqual(['github']);
    expect(index.gatewaysOneEditFrom('gitlub').sort()).toEqual(['github', 'gitlab']);
    expect(index.gatewaysOneEditFrom('googlemap')).toEqual(['google-maps']);
    expect(index.toolOf('github', 'createissue')?.name).toBe('create_issue');
    expect(index.toolOf('weather', 'createissue')).toBeNull();
  });

  it('is reused across contexts, each telling its own gateway apart', () => {
    const github = scanContext({ gatewaySlug: 'github', ownTools: ['Create_Issue'], tools: index });
    expect(github.tools).toBe(index);
    expect(github.ownTools.has('create_issue')).toBe(true);
    expect(index.othersWithPlain('createissue', 'github').map((tool) => tool.gatewaySlug)).toEqual([
      'gitlab',
    ]);
  });

  it('indexes 100,000 tools', () => {
    const many = ToolNameIndex.of(
      Array.from({ length: 100_000 }, (_, i) => ({
        gatewaySlug: `gateway-${i % 500}`,
        name: `tool_${i}`,
      })),
    );
    expect(many.referencedTool('tool_99999', 'gateway-1')?.gatewaySlug).toBe('gateway-499');
  });
});
