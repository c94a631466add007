import { policyTool } from '../../../test/support/policy-tools';
import { WordVectors } from '../../embeddings/word-vectors';
import { type DirectoryTool } from '../directory/directory-tool';
import { ToolAnalysisCache } from './tool-analysis';
import { deferredTools, ToolCatalogue } from './tool-catalogue';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';

let vectors: WordVectors;
beforeAll(async () => {
  vectors = await WordVectors.load();
});

function buildToolCatalogue(
  tools: readonly DirectoryTool[],
  alwaysLoaded: readonly string[],
  analyses = new ToolAnalysisCache(vectors),
): Promise<ToolCatalogue> {
  return ToolCatalogue.build(deferredTools(tools, alwaysLoaded), {
    analyses,
    wordVectors: vectors,
  });
}

function tool(
  gateway: string,
  originalName: string,
  description: string,
  properties: Record<string, { type: string; description?: string }> = {},
  extra: Partial<DirectoryTool> = {},
): DirectoryTool {
  const name = `${gateway}-${originalName}`;
  return {
    id: name,
    name,
    gatewayId: `id-${gateway}`,
    gatewaySlug: gateway,
    originalName,
    toolHash: '0'.repeat(12),
    visibility: ['model', 'app'],
    definition: { name, description, inputSchema: { type: 'object', properties } },
    policy: policyTool(name, { id: name, gatewaySlug: gateway, originalName }),
    ...extra,
  };
}

const TOOLS = [
  tool('github', 'create_issue', 'Create a new issue in a repository', {
    owner: { type: 'string' },
    repo: { type: 'string' },
    title: { type: 'string', description: 'Issue title' },
  }),
  tool('github', 'list_pull_requests', 'List pull requests of a repository', {
    state: { type: 'string', description: 'open, closed or all' },
  }),
  tool('github', 'search_code', 'Search code across repositories'),
  tool('slack', 'post_message', 'Post a message to a channel', {
    channel_id: { type: 'string', description: 'The Slack channel' },
    text: { type: 'string' },
  }),
  tool('slack', 'list_channels', 'List public channels in the workspace'),
  tool('fs', 'read_file', 'Read the complete contents of a file', {
    path: { type: 'string', description: 'Path of the file' },
  }),
  tool('fs', 'write_file', 'Create or overwrite a file with new content'),
  tool('pg', 'query', 'Run a read-only SQL query against the database', {
    sql: { type: 'string', description: 'The SQL statement' },
  }),
];

const names = (tools: { name: string }[]) => tools.map((t) => t.name);

describe('the deferred catalogue', () => {
  it('defers every tool but the always-loaded ones, app-only tools and the built-in namesake', async () => {
    const appOnly = tool('ui', 'refresh', 'App-only refresh', {}, { visibility: ['app'] });
    const namesake = { ...tool('x', 'y', 'Collides'), name: TOOL_SEARCH_NAME };
    const catalogue = await buildToolCatalogue([...TOOLS, appOnly, namesake], ['fs-read_file']);
    expect(catalogue.size).toBe(TOOLS.length - 1);
    expect(catalogue.has('fs-read_file')).toBe(false);
    expect(catalogue.has('ui-refresh')).toBe(false);
    expect(catalogue.has(TOOL_SEARCH_NAME)).toBe(false);
    expect(catalogue.has('github-create_issue')).toBe(true);
  });

  it('counts deferred tools per gateway, most first', async () => {
    expect((await buildToolCatalogue(TOOLS, ['fs-read_file'])).gateways).toEqual([
      { gateway: 'github', tools: 3 },
      { gateway: 'slack', tools: 2 },
      { gateway: 'fs', tools: 1 },
      { gateway: 'pg', tools: 1 },
    ]);
  });

  describe('hash', () => {
    const hash = async (tools: DirectoryTool[]) => (await buildToolCatalogue(tools, [])).hash;

    it('does not depend on the order of the tools, and is the same when built again', async () => {
      expect(await hash([...TOOLS].reverse())).toBe(await hash(TOOLS));
      expect(
        await hash(TOOLS.map((t) => ({ ...t, definition: structuredClone(t.definition) }))),
      ).toBe(await hash(TOOLS));
      expect(await hash(TOOLS)).toMatch(/^[0-9a-f]{64}$/);
    });

    it('changes when a schema, a description or the set of names changes', async () => {
      const base = await hash(TOOLS);
      const [first, ...rest] = TOOLS;
      const schema = {
        ...first!,
        definition: {
          ...first!.definition,
          inputSchema: { type: 'object' as const, properties: { owner: { type: 'number' } } },
        },
      };
      const description = { ...first!, definition: { ...first!.definition, description: 'x' } };
      expect(await hash([schema, ...rest])).not.toBe(base);
      expect(await hash([description, ...rest])).not.toBe(base);
      expect(await hash(rest)).not.toBe(base);
    });

    it('changes with the always-loaded list, which changes what is deferred', async () => {
      expect((await buildToolCatalogue(TOOLS, ['pg-query'])).hash).not.toBe(
        (await buildToolCatalogue(TOOLS, [])).hash,
      );
    });
  });

  describe('search', () => {
    let catalogue: ToolCatalogue;
    beforeAll(async () => {
      catalogue = await buildToolCatalogue(TOOLS, ['fs-read_file']);
    });

    it('ranks first, among siblings the words match alike, the one that does what is asked', async () => {
      const siblings = ['list_issues', 'create_issue', 'delete_issue'].map((name) =>
        tool('tracker', name, 'An issue of the tracker'),
      );
      const tracker = await buildToolCatalogue(siblings, []);
      expect(names(tracker.search('which issues are there in the tracker', 1))).toEqual([
        'tracker-list_issues',
      ]);
      expect(names(tracker.search('get rid of tracker issue 12', 1))).toEqual([
        'tracker-delete_issue',
      ]);
      expect(names(tracker.search('open a tracker issue about the outage', 1))).toEqual([
        'tracker-create_issue',
      ]);
    });

    it('select: returns the exact names asked for, in that order, skipping unknown ones', async () => {
      expect(names(catalogue.search('select:pg-query,nope-nothing,github-search_code'))).toEqual([
        'pg-query',
        'github-search_code',
      ]);
    });

    it('select: returns full definitions', async () => {
      expect(catalogue.search('select:slack-post_message')).toEqual([TOOLS[3]!.definition]);
    });

    it('select: does not return always-loaded tools, which are not deferred', async () => {
      expect(catalogue.search('select:fs-read_file')).toEqual([]);
    });

    it('+term keeps names containing the term, case-insensitively, ranked by the rest', async () => {
      expect(names(catalogue.search('+GITHUB pull requests'))).toEqual([
        'github-list_pull_requests',
        'github-create_issue',
        'github-search_code',
      ]);
      expect(names(catalogue.search('+list'))).toEqual([
        'github-list_pull_requests',
        'slack-list_channels',
      ]);
    });

    it('+term ranks only names with the term, even when others match the rest better', async () => {
      expect(names(catalogue.search('+slack issue repository'))).toEqual([
        'slack-list_channels',
        'slack-post_message',
      ]);
    });

    it('free text ranks by name, description and argument names and descriptions', async () => {
      expect(names(catalogue.search('post a message to slack')).at(0)).toBe('slack-post_message');
      expect(names(catalogue.search('open new issue')).at(0)).toBe('github-create_issue');
      expect(names(catalogue.search('run SQL against the database')).at(0)).toBe('pg-query');
      // Only an argument description mentions "title".
      expect(names(catalogue.search('title'))).toEqual(['github-create_issue']);
      // Only an argument name mentions "channel_id"'s "id".
      expect(names(catalogue.search('channel id')).at(0)).toBe('slack-post_message');
    });

    it('free text returns only tools that match something', async () => {
      expect(catalogue.search('kubernetes')).toEqual([]);
    });

    it('honours limit', async () => {
      expect(catalogue.search('+github', 2)).toHaveLength(2);
      expect(catalogue.search('list repository channels', 1)).toHaveLength(1);
      expect(catalogue.search('select:pg-query,github-search_code', 1)).toHaveLength(1);
    });

    it.each(['', '   ', '+', '+  ', 'select:', '+(unclosed', '((( *** )))', 'select:[a-'])(
      'never raises, and finds nothing, for %j',
      async (query) => {
        expect(catalogue.search(query)).toEqual([]);
      },
    );

    it('searches an empty catalogue without raising', async () => {
      expect((await buildToolCatalogue([], [])).search('anything')).toEqual([]);
    });
  });
});
