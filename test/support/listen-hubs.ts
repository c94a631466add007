import { type JSONRPCNotification } from '@modelcontextprotocol/server';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { type UpstreamList } from '../../src/events/event-bus';
import { type ListVersions } from '../../src/mcp/listen/list-versions';
import { ListenHub, type ListenReports } from '../../src/mcp/listen/listen-hub';
import { type ListenEnd } from '../../src/mcp/listen/listen-sink';
import { type McpScope, scopeKey } from '../../src/mcp/protocol/mcp-scope';

// What the ListenHub's unit specs share: a hub on an in-process bus over scopes whose list
// versions the test changes, and sinks that record what the hub wrote.

export const ALL: McpScope = { kind: 'all' };
export const S1: McpScope = { kind: 'server', serverId: 's1' };
export const S2: McpScope = { kind: 'server', serverId: 's2' };

/** A listen's stream as the hub sees it: what was written, how it ended. */
export class RecordingSink {
  readonly messages: JSONRPCNotification[] = [];
  ended: ListenEnd | null = null;
  constructor(private readonly room = Infinity) {}

  write(message: JSONRPCNotification): boolean {
    if (this.messages.length >= this.room) return false;
    this.messages.push(message);
    return true;
  }

  end(reason: ListenEnd): void {
    this.ended = reason;
  }

  methods(): string[] {
    return this.messages.map((message) => message.method);
  }
}

/** Each scope's list versions, changed by the test as a sync or a member change would. */
export class Catalogue {
  private readonly scopes = new Map<string, Record<UpstreamList, string>>();
  /** `scope|list|gateway` of each list that holds members of a gateway. */
  private readonly held = new Set<string>();

  /** The scope's list holds members of the gateway. */
  hold(scope: McpScope, kind: UpstreamList, gatewayId: string): void {
    this.held.add(`${scopeKey(scope)}|${kind}|${gatewayId}`);
  }

  set(scope: McpScope, versions: Partial<Record<UpstreamList, string>> | null): void {
    if (versions === null) this.scopes.delete(scopeKey(scope));
    else
      this.scopes.set(scopeKey(scope), {
        ...(this.scopes.get(scopeKey(scope)) ?? { tools: 't0', resources: 'r0', prompts: 'p0' }),
        ...versions,
      });
  }

  read = async (scope: McpScope): Promise<ListVersions | null> => {
    const key = scopeKey(scope);
    const versions = this.scopes.get(key);
    if (!versions) return null;
    return {
      version: (kind) => versions[kind],
      holds: (kind, gatewayId) => this.held.has(`${key}|${kind}|${gatewayId}`),
    };
  };
}

/** A started hub with these caps, over ALL, S1 and S2 at their first versions. */
export function startHub(
  limits: { perPrincipal: number; total: number },
  reports?: ListenReports,
): {
  bus: InProcessEventBus;
  catalogue: Catalogue;
  hub: ListenHub;
} {
  const bus = new InProcessEventBus();
  const catalogue = new Catalogue();
  for (const scope of [ALL, S1, S2]) catalogue.set(scope, {});
  const hub = new ListenHub(bus, catalogue.read, limits, reports);
  hub.onModuleInit();
  return { bus, catalogue, hub };
}

export function ownerOf(subject: string): { subject: string; tokenId: null } {
  return { subject, tokenId: null };
}
