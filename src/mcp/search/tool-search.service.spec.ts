import { policyTool } from '../../../test/support/policy-tools';
import { type CallToolResult, type JSONRPCNotification } from '@modelcontextprotocol/server';
import { loadConfig } from '../../config/load-config';
import { type ToolSearchSettings } from '../../config/slices/mcp.settings';
import { LocalEmbeddings } from '../../embeddings/local-embeddings.service';
import { type ProviderEmbeddings } from '../../embeddings/provider-embeddings.service';
import { tempDataDir } from '../../../test/support/temp-dir';
import { type DirectoryTool } from '../directory/directory-tool';
import { ToolDirectory } from '../directory/tool-directory';
import { RpcError } from '../protocol/mcp-errors';
import { mergePromotions, type Promotions } from './promotions';
import { type ToolCatalogue, TOOL_SEARCH_NAME } from './tool-catalogue';
import { ToolSearchService } from './tool-search.service';
import { type PromotionOwner } from './promotion-owner';
import { type PromotionStore } from './promotion-store';

function tool(name: string, description = `The ${name} tool`): DirectoryTool {
  return {
    id: name,
    name,
    gatewayId: 'g1',
    gatewaySlug: 'gw',
    originalName: name.replace(/^gw-/, ''),
    toolHash: '0'.repeat(12),
    visibility: ['model', 'app'],
    definition: { name, description, inputSchema: { type: 'object' } },
    policy: policyTool(name, { id: name }),
  };
}

/**
 * The promotion store as the service uses it, for one owner: `stored` is the database, `cached`
 * this replica's copy, which lags until told otherwise.
 */
class FakeStore {
  stored: Promotions | null = null;
  cached: Promotions | null = null;

  async promotions(_owner: PromotionOwner, fresh = false): Promise<Promotions | null> {
    if (fresh) this.cached = this.stored;
    return fresh ? this.stored : this.cached;
  }

  async promote(_owner: PromotionOwner, catalogHash: string, names: readonly string[]) {
    const next = mergePromotions(this.stored, catalogHash, names);
    const changed = JSON.stringify(next) !== JSON.stringify(this.stored);
    this.stored = this.cached = next;
    return { promotions: next, changed };
  }
}

const TOOLS = [
  tool('gw-always', 'Always there'),
  tool('gw-send_email', 'Send an email to someone'),
  tool('gw-read_file', 'Read a file from disk'),
  tool('gw-weather', 'Weather forecast for a city'),
];

function serverDirectory(settings: ToolSearchSettings, tools = TOOLS): ToolDirectory {
  return new ToolDirectory(
    { kind: 'server', serverId: 's1' },
    {
      id: 's1',
      name: 'S',
      clientEras: 'any',
      toolSearchEnabled: settings.enabled,
      toolSearchAlwaysLoaded: [...settings.alwaysLoaded],
    },
    tools,
  );
}

/** The owner of the promotions these tests make: a 2025 session (FakeStore keeps them). */
const SESSION = { kind: 'session', sessionId: 'session-1' } as const;

/** Loaded once for the file: the table takes a few hundred milliseconds to decode. */
const localEmbeddings = new LocalEmbeddings();
const noProvider = { enabled: false } as ProviderEmbeddings;

function setUp(env: Record<string, string> = {}) {
  const store = new FakeStore();
  const config = loadConfig({ DATA_DIR: tempDataDir(), ...env });
  const service = new ToolSearchService(
    config,
    store as unknown as PromotionStore,
    localEmbeddings,
    noProvider,
  );
  const notifications: JSONRPCNotification[] = [];
  const call = (directory: ToolDirectory, name: string, args?: Record<string, unknown>) =>
    service.intercept(directory, SESSION, { name, arguments: args }, (n) => notifications.push(n));
  return { store, service, notifications, call };
}

const listedNames = (tools: { name: string }[] | null) => tools?.map((t) => t.name);

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

  it('refuses a deferred tool until it is promoted; lets always-loaded and unknown names through', async () => {
    const { call } = setUp();
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

  describe('the gateway filter', () => {
    const other = (name: string, description: string): DirectoryTool => ({
      ...tool(name, description),
      gatewayId: 'g2',
      gatewaySlug: 'crm',
      originalName: name.replace(/^crm-/, ''),
    });
    const mixed = serverDirectory({ enabled: true, alwaysLoaded: [] }, [
      ...TOOLS,
      other('crm-send_email', 'Send an email to a contact'),
    ]);
    const names = (result: CallToolResult | null) =>
      (result!.structuredContent as { hits: { name: string }[] }).hits.map((hit) => hit.name);

    it('keeps only tools of the gateway named by gateway or server, in any case', async () => {
      const { call } = setUp();
      expect(names(await call(mixed, TOOL_SEARCH_NAME, { query: 'send an email' }))).toEqual(
        expect.arrayContaining(['gw-send_email', 'crm-send_email']),
      );
      for (const args of [
        { gateway: 'crm' },
        { server: 'CRM' },
        { gateway: ' crm ', server: 'gw' },
      ])
        expect(
          names(await call(mixed, TOOL_SEARCH_NAME, { query: 'send an email', ...args })),
        ).toEqual(['crm-send_email']);
      expect(
        names(await call(mixed, TOOL_SEARCH_NAME, { query: 'select:gw-weather', gateway: 'crm' })),
      ).toEqual([]);
    });

    it('names the gateways there are when it is given one that has no deferred tools', async () => {
      const { call } = setUp();
      const result = (await call(mixed, TOOL_SEARCH_NAME, { query: 'email', gateway: 'nope' }))!;
      expect(result.content).toEqual([
        {
          type: 'text',
          text: 'No deferred tool belongs to gateway "nope". Gateways with deferred tools: gw, crm.',
        },
      ]);
    });

    it('ignores a gateway that is not a string', async () => {
      const { call } = setUp();
      expect(
        names(await call(mixed, TOOL_SEARCH_NAME, { query: 'weather forecast', gateway: 7 })),
      ).toEqual(['gw-weather']);
    });
  });

  it('ranks with the embeddings provider once its tool vectors arrive', async () => {
    // A two-dimensional "model": email tools point one way, everything else the other.
    const axis = (text: string) =>
      Float32Array.from(/email|mail|inbox|letter/i.test(text) ? [1, 0] : [0, 1]);
    const asked: string[] = [];
    const provider = {
      enabled: true,
      embedTools: async (inputs: { text: string }[]) => inputs.map((input) => axis(input.text)),
      embedQuery: async (query: string) => {
        asked.push(query);
        return axis('letter');
      },
      fallBack: () => null,
    } as unknown as ProviderEmbeddings;
    const service = new ToolSearchService(
      loadConfig({ DATA_DIR: tempDataDir() }),
      new FakeStore() as unknown as PromotionStore,
      localEmbeddings,
      provider,
    );
    const scope = (await service.searchable(on))!;
    await scope.providerVectors;
    expect(scope.catalogue.usesProviderVectors).toBe(true);
    const result = await service.intercept(
      on,
      SESSION,
      { name: TOOL_SEARCH_NAME, arguments: { query: 'zzqx letter' } },
      () => undefined,
    );
    expect(asked).toEqual(['zzqx letter']);
    expect((result!.structuredContent as { hits: { name: string }[] }).hits[0]!.name).toBe(
      'gw-send_email',
    );
  });

  describe('when the catalogue cannot be built', () => {
    class Broken extends ToolSearchService {
      protected override async buildCatalogue(): Promise<ToolCatalogue> {
        throw new Error('out of memory');
      }
    }
    const broken = () =>
      new Broken(
        loadConfig({ DATA_DIR: tempDataDir(), LOG_LEVEL: 'error' }),
        new FakeStore() as unknown as PromotionStore,
        localEmbeddings,
        noProvider,
      );

    it('fails closed: tools/list errors instead of listing every schema', async () => {
      const service = broken();
      jest.spyOn(service['logger'], 'error').mockImplementation(() => undefined);
      await expect(service.listed(on, SESSION)).rejects.toThrow(
        /Tool search is enabled but its catalogue could not be built/,
      );
      await expect(
        service.intercept(on, SESSION, { name: 'gw-weather' }, () => undefined),
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
