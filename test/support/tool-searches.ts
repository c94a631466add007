import { type JSONRPCNotification } from '@modelcontextprotocol/server';
import { type ToolSearchSettings } from '../../src/config/slices/mcp.settings';
import { LocalEmbeddings } from '../../src/embeddings/local-embeddings.service';
import { type ProviderEmbeddings } from '../../src/embeddings/provider-embeddings.service';
import { type DirectoryTool } from '../../src/mcp/directory/directory-tool';
import { ToolDirectory } from '../../src/mcp/directory/tool-directory';
import { mergePromotions, type Promotions } from '../../src/mcp/search/promotions';
import { type RequestOwner } from '../../src/mcp/protocol/mcp-request';
import { type PromotionStore } from '../../src/mcp/search/promotion-store';
import { ToolSearchService } from '../../src/mcp/search/tool-search.service';
import { policyTool } from './policy-tools';

// What the ToolSearchService specs share: a server's directory of four tools, a promotion store
// that lags as a replica's cache does, and a service with local embeddings only.

export function tool(name: string, description = `The ${name} tool`): DirectoryTool {
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
export class FakeStore {
  stored: Promotions | null = null;
  cached: Promotions | null = null;

  async promotions(_owner: RequestOwner, fresh = false): Promise<Promotions | null> {
    if (fresh) this.cached = this.stored;
    return fresh ? this.stored : this.cached;
  }

  async promote(_owner: RequestOwner, catalogHash: string, names: readonly string[]) {
    const next = mergePromotions(this.stored, catalogHash, names);
    const changed = JSON.stringify(next) !== JSON.stringify(this.stored);
    this.stored = this.cached = next;
    return { promotions: next, changed };
  }
}

export const TOOLS = [
  tool('gw-always', 'Always there'),
  tool('gw-send_email', 'Send an email to someone'),
  tool('gw-read_file', 'Read a file from disk'),
  tool('gw-weather', 'Weather forecast for a city'),
];

export function serverDirectory(settings: ToolSearchSettings, tools = TOOLS): ToolDirectory {
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
export const SESSION = { kind: 'session', sessionId: 'session-1' } as const;

/** Loaded once for the file: the table takes a few hundred milliseconds to decode. */
export const localEmbeddings = new LocalEmbeddings();
export const noProvider = { enabled: false } as ProviderEmbeddings;

export function setUp() {
  const store = new FakeStore();
  const service = new ToolSearchService(
    store as unknown as PromotionStore,
    localEmbeddings,
    noProvider,
  );
  const notifications: JSONRPCNotification[] = [];
  /** The calls counted against the scope's limits, by name. */
  const counted: string[] = [];
  const call = (directory: ToolDirectory, name: string, args?: Record<string, unknown>) =>
    service.intercept(
      directory,
      SESSION,
      { name, arguments: args },
      {
        notify: (notification) => notifications.push(notification),
        counted: () => Promise.resolve(void counted.push(name)),
      },
    );
  return { store, service, notifications, call, counted };
}

export const listedNames = (tools: { name: string }[] | null) => tools?.map((t) => t.name);
