import { type CallToolResult } from '@modelcontextprotocol/server';
import {
  FakeStore,
  listedNames,
  localEmbeddings,
  noProvider,
  serverDirectory,
  SESSION,
  setUp,
  tool,
  TOOLS,
} from '../../../test/support/tool-searches';
import { type DirectoryTool } from '../directory/directory-tool';
import { ToolDirectory } from '../directory/tool-directory';
import { RpcError } from '../protocol/mcp-errors';
import { type ToolCatalogue } from './tool-catalogue';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';
import { ToolSearchService } from './tool-search.service';
import { QUERY_LENGTH } from './tool-search.tool';
import { type PromotionStore } from './promotion-store';

describe('ToolSearchService', () => {
  const on = serverDirectory({ enabled: true, alwaysLoaded: ['gw-always'] });

  it('stays out of the way when search is off', async () => {
    const { service, call } = setUp();
    const off = serverDirectory({ enabled: false, alwaysLoaded: [] });
    expect(await service.listed(off, SESSION)).toBeNull();
    expect(await call(off, 'gw-weather')).toBeNull();
    expect(await call(off, TOOL_SEARCH_NAME, { query: 'weather' })).toBeNull();
  });

  it('lists tool_search and the always-loaded tools, not the deferred ones', async () => {
    const { service } = setUp();
    const listed = await service.listed(on, SESSION);
    expect(listedNames(listed)).toEqual([TOOL_SEARCH_NAME, 'gw-always']);
    expect(listed![0]!.description).toContain('3 tools are deferred, by gateway: gw (3).');
  });

  it('lists promoted tools once a search has promoted them, and says the list changed', async () => {
    const { service, call, notifications } = setUp();
    const result = (await call(on, TOOL_SEARCH_NAME, { query: 'weather forecast' }))!;
    const hits = [{ name: 'gw-weather', description: 'Weather forecast for a city', required: [] }];
    expect(result.structuredContent).toEqual({ hits, tools: [TOOLS[3]!.definition] });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: '1 tool found, best first; now loaded and callable by name:\n1. gw-weather - Weather forecast for a city No required arguments.',
      },
      { type: 'text', text: JSON.stringify({ hits, tools: [TOOLS[3]!.definition] }) },
    ]);
    expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(listedNames(await service.listed(on, SESSION))).toEqual([
      TOOL_SEARCH_NAME,
      'gw-always',
      'gw-weather',
    ]);
  });

  it('does not announce a change when a search promotes nothing new', async () => {
    const { call, notifications } = setUp();
    await call(on, TOOL_SEARCH_NAME, { query: 'select:gw-weather' });
    await call(on, TOOL_SEARCH_NAME, { query: 'select:gw-weather' });
    await call(on, TOOL_SEARCH_NAME, { query: 'nothing matches this' });
    expect(notifications).toHaveLength(1);
  });

  it('refuses a deferred tool until it is promoted, counting each refusal; lets always-loaded and unknown names through', async () => {
    const { call, counted } = setUp();
    const refused = (await call(on, 'gw-read_file')) as CallToolResult;
    expect(refused).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: "Tool 'gw-read_file' is deferred and has not been promoted yet. Call tool_search (for example `select:gw-read_file`) first, then retry.",
        },
      ],
    });
    expect(await call(on, 'gw-always')).toBeNull();
    expect(await call(on, 'gw-unknown')).toBeNull();
    await call(on, TOOL_SEARCH_NAME, { query: 'select:gw-read_file' });
    expect(await call(on, 'gw-read_file')).toBeNull();
    // Searches are counted by the caller; a promoted tool's call by the guard, once.
    expect(counted).toEqual(['gw-read_file']);
  });

  it('asks the store again before refusing, as another replica may have promoted the tool', async () => {
    const { store, call } = setUp();
    await call(on, TOOL_SEARCH_NAME, { query: 'select:gw-read_file' });
    store.cached = null;
    expect(await call(on, 'gw-read_file')).toBeNull();
  });

  it('drops promotions made under another catalogue', async () => {
    const { service, call } = setUp();
    await call(on, TOOL_SEARCH_NAME, { query: 'select:gw-weather' });
    const changed = serverDirectory({ enabled: true, alwaysLoaded: ['gw-always'] }, [
      ...TOOLS.slice(0, 3),
      tool('gw-weather', 'Weather forecast for a city, now in Kelvin'),
    ]);
    expect(listedNames(await service.listed(changed, SESSION))).toEqual([
      TOOL_SEARCH_NAME,
      'gw-always',
    ]);
    expect(await call(changed, 'gw-weather')).toMatchObject({ isError: true });
  });

  it('answers empty and invalid queries with an empty result', async () => {
    const { call, notifications } = setUp();
    for (const query of ['', '   ', '+', '+(', 'select:']) {
      const result = (await call(on, TOOL_SEARCH_NAME, { query }))!;
      expect(result.structuredContent).toEqual({ hits: [], tools: [] });
      expect(result.isError).toBeUndefined();
    }
    expect(notifications).toEqual([]);
  });

  it('answers a missing or non-string query with an empty result, and ignores a bad limit', async () => {
    const { call, notifications } = setUp();
    for (const args of [undefined, {}, { query: 3 }, { query: null }, { query: ['weather'] }]) {
      const result = (await call(on, TOOL_SEARCH_NAME, args))!;
      expect(result.structuredContent).toEqual({ hits: [], tools: [] });
      expect(result.isError).toBeUndefined();
    }
    expect(notifications).toEqual([]);
    const limited = (await call(on, TOOL_SEARCH_NAME, {
      query: 'select:gw-weather',
      limit: 'all',
    }))!;
    expect(limited.structuredContent).toMatchObject({ tools: [TOOLS[3]!.definition] });
    // Read up to QUERY_LENGTH: what lies beyond it is not searched for.
    const padded = (await call(on, TOOL_SEARCH_NAME, {
      query: `${' '.repeat(QUERY_LENGTH)}select:gw-weather`,
    }))!;
    expect(padded.structuredContent).toEqual({ hits: [], tools: [] });
  });

  it('refuses a deferred tool called by its hashed backend name, naming its virtual name', async () => {
    const { call } = setUp();
    const weather = { ...TOOLS[3]!, toolHash: 'abcdefabcdef' };
    const directory = serverDirectory({ enabled: true, alwaysLoaded: ['gw-always'] }, [
      ...TOOLS.slice(0, 3),
      weather,
    ]);
    const refused = (await call(directory, 'abcdefabcdef_weather')) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([
      {
        type: 'text',
        text: "Tool 'gw-weather' is deferred and has not been promoted yet. Call tool_search (for example `select:gw-weather`) first, then retry.",
      },
    ]);
    // Names the hash path does not resolve are left to tools/call to refuse.
    expect(await call(directory, 'abcdefabcdef_read_file')).toBeNull();
    expect(await call(directory, '000000000000_weather')).toBeNull();
    await call(directory, TOOL_SEARCH_NAME, { query: 'select:gw-weather' });
    expect(await call(directory, 'abcdefabcdef_weather')).toBeNull();
  });

  it('lets a hashed name through when its tool is always loaded or not app-visible', async () => {
    const { call } = setUp();
    const always = { ...TOOLS[0]!, toolHash: 'aaaaaaaaaaaa' };
    const modelOnly: DirectoryTool = {
      ...TOOLS[3]!,
      toolHash: 'bbbbbbbbbbbb',
      visibility: ['model'],
    };
    const directory = serverDirectory({ enabled: true, alwaysLoaded: ['gw-always'] }, [
      always,
      ...TOOLS.slice(1, 3),
      modelOnly,
    ]);
    expect(await call(directory, 'aaaaaaaaaaaa_always')).toBeNull();
    expect(await call(directory, 'bbbbbbbbbbbb_weather')).toBeNull();
  });

  it('builds a catalogue once per directory, and anew for a new directory', async () => {
    const { service } = setUp();
    const first = await service.searchable(on);
    expect(await service.searchable(on)).toBe(first);
    expect(await service.searchable(serverDirectory({ enabled: true, alwaysLoaded: [] }))).not.toBe(
      first,
    );
  });

  it('takes the settings of /mcp from its directory, which has them from the configuration', async () => {
    const { service } = setUp();
    const all = new ToolDirectory({ kind: 'all' }, null, TOOLS, {
      search: { enabled: true, alwaysLoaded: ['gw-weather'] },
    });
    expect(listedNames(await service.listed(all, SESSION))).toEqual([
      TOOL_SEARCH_NAME,
      'gw-weather',
    ]);
  });

  describe('when the catalogue cannot be built', () => {
    class Broken extends ToolSearchService {
      protected override async buildCatalogue(): Promise<ToolCatalogue> {
        throw new Error('out of memory');
      }
    }
    const broken = () =>
      new Broken(new FakeStore() as unknown as PromotionStore, localEmbeddings, noProvider);

    it('fails closed: tools/list errors instead of listing every schema', async () => {
      const service = broken();
      jest.spyOn(service['logger'], 'error').mockImplementation(() => undefined);
      await expect(service.listed(on, SESSION)).rejects.toThrow(
        /Tool search is enabled but its catalogue could not be built/,
      );
      await expect(
        service.intercept(
          on,
          SESSION,
          { name: 'gw-weather' },
          { notify: () => undefined, counted: () => Promise.resolve() },
        ),
      ).rejects.toThrow(RpcError);
    });

    it('still serves everything when search is off', async () => {
      const service = broken();
      expect(
        await service.listed(serverDirectory({ enabled: false, alwaysLoaded: [] }), SESSION),
      ).toBeNull();
    });
  });
});
