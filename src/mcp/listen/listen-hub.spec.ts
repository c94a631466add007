import { type JSONRPCNotification } from '@modelcontextprotocol/server';
import { waitFor } from '../../../test/support/wait-for';
import { InProcessEventBus } from '../../events/in-process-event-bus';
import { type ListKind } from '../directory/scope-directory';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { advertisedFilter } from './listen-filter';
import { type ListVersions } from './list-versions';
import {
  type ListenEnd,
  ListenHub,
  type ListenRequest,
  type OpenListen,
  type SessionListener,
  SUBSCRIPTION_ID,
} from './listen-hub';

/** A listen's stream as the hub sees it: what was written, how it ended. */
class RecordingSink {
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
class Catalogue {
  private readonly scopes = new Map<string, Record<ListKind, string>>();

  set(scope: McpScope, versions: Partial<Record<ListKind, string>> | null): void {
    if (versions === null) this.scopes.delete(scopeKey(scope));
    else
      this.scopes.set(scopeKey(scope), {
        ...(this.scopes.get(scopeKey(scope)) ?? { tools: 't0', resources: 'r0', prompts: 'p0' }),
        ...versions,
      });
  }

  read = async (scope: McpScope): Promise<ListVersions | null> => {
    const versions = this.scopes.get(scopeKey(scope));
    return versions ? { version: (kind) => versions[kind] } : null;
  };
}

const ALL: McpScope = { kind: 'all' };
const S1: McpScope = { kind: 'server', serverId: 's1' };
const S2: McpScope = { kind: 'server', serverId: 's2' };

describe('ListenHub', () => {
  let bus: InProcessEventBus;
  let catalogue: Catalogue;
  let hub: ListenHub;

  beforeEach(() => {
    bus = new InProcessEventBus();
    catalogue = new Catalogue();
    for (const scope of [ALL, S1, S2]) catalogue.set(scope, {});
    hub = new ListenHub(bus, catalogue.read, { perPrincipal: 3, total: 5 });
    hub.onModuleInit();
  });

  afterEach(() => hub.onModuleDestroy());

  async function listen(
    filter: unknown,
    options: Partial<Omit<ListenRequest, 'sink' | 'filter'>> & { room?: number } = {},
  ): Promise<RecordingSink & { listen: OpenListen }> {
    const sink = new RecordingSink(options.room);
    const opened = await hub.open({
      requestId: options.requestId ?? 41,
      scope: options.scope ?? S1,
      owner: options.owner ?? { subject: 'user:u1', tokenId: null },
      filter,
      sink,
    });
    if (!opened.ok) throw new Error(opened.refusal);
    return Object.assign(sink, { listen: opened.listen });
  }

  it('acknowledges first, echoing the filter it honours, stamped with the listen id', async () => {
    const sink = await listen(
      {
        toolsListChanged: true,
        promptsListChanged: false,
        resourceSubscriptions: ['a://1', 'a://1', 7, 'a://2'],
        unknownThing: true,
      },
      { requestId: 'listen-7' },
    );
    expect(sink.messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: ['a://1', 'a://2'] },
          _meta: { [SUBSCRIPTION_ID]: 'listen-7' },
        },
      },
    ]);
  });

  it('tells the listens of an affected scope that asked, and no others', async () => {
    const tools = await listen({ toolsListChanged: true });
    const prompts = await listen({ promptsListChanged: true });
    const otherScope = await listen({ toolsListChanged: true }, { scope: S2 });
    catalogue.set(S1, { tools: 't1' });
    await bus.publish({ type: 'servers.changed', serverIds: ['s1'] });
    await waitFor(() => tools.messages.length === 2, 'the tools listen to hear the change');
    expect(tools.messages[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 41 } },
    });
    expect(prompts.methods()).toEqual(['notifications/subscriptions/acknowledged']);
    expect(otherScope.methods()).toEqual(['notifications/subscriptions/acknowledged']);
  });

  it('tells a listen once per change, however many events announce it', async () => {
    const sink = await listen({ toolsListChanged: true, resourcesListChanged: true });
    catalogue.set(S1, { tools: 't1', resources: 'r1' });
    for (let i = 0; i < 5; i++) await bus.publish({ type: 'catalog.changed', gatewayIds: ['g1'] });
    await waitFor(() => sink.messages.length === 3, 'both lists to be announced');
    catalogue.set(S1, { tools: 't2' });
    await bus.publish({ type: 'catalog.changed', gatewayIds: ['g1'] });
    await waitFor(() => sink.messages.length === 4, 'the second change');
    expect(sink.methods().slice(1)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
    ]);
  });

  it('ends the listens of a server that went away', async () => {
    const sink = await listen({ toolsListChanged: true });
    const other = await listen({ toolsListChanged: true }, { scope: S2 });
    catalogue.set(S1, null);
    await bus.publish({ type: 'servers.changed', serverIds: ['s1'] });
    await waitFor(() => sink.ended !== null, 'the listen to end');
    expect(sink.ended).toBe('scope-gone');
    expect(other.ended).toBeNull();
    expect(hub.size).toBe(1);
  });

  it('refuses to listen on a server that does not exist', async () => {
    catalogue.set(S1, null);
    expect(
      await hub.open({
        requestId: 1,
        scope: S1,
        owner: { subject: 'user:u1', tokenId: null },
        filter: {},
        sink: new RecordingSink(),
      }),
    ).toEqual({ ok: false, refusal: 'scope-gone' });
  });

  it('tells then drops the listens of a principal whose identity changed', async () => {
    const user = await listen({ toolsListChanged: true });
    const token = await listen(
      { promptsListChanged: true },
      { owner: { subject: 'token:t9', tokenId: 't9' } },
    );
    const grant = await listen({}, { owner: { subject: 'user:u3', tokenId: 'grant-1' } });
    const bystander = await listen({ toolsListChanged: true }, { owner: ownerOf('user:u2') });
    await bus.publish({
      type: 'identity.changed',
      userIds: ['u1'],
      tokenIds: ['t9'],
      grantIds: ['grant-1'],
    });
    expect(user.methods().at(-1)).toBe('notifications/tools/list_changed');
    expect(token.methods().at(-1)).toBe('notifications/prompts/list_changed');
    expect([user.ended, token.ended, grant.ended]).toEqual([
      'identity-changed',
      'identity-changed',
      'identity-changed',
    ]);
    expect(bystander.ended).toBeNull();
    expect(hub.size).toBe(1);
  });

  it('delivers resources/updated to the listen that follows the URI, stamped with its id', async () => {
    const follows = await listen({ resourceSubscriptions: ['crm://4411'] }, { requestId: 9 });
    const other = await listen({ resourceSubscriptions: ['crm://9020'] });
    follows.listen.resourceUpdated('crm://4411');
    expect(follows.messages[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'crm://4411', _meta: { [SUBSCRIPTION_ID]: 9 } },
    });
    expect(other.messages).toHaveLength(1);
  });

  it('drops a listen whose stream does not keep up, rather than buffer for it', async () => {
    const slow = await listen({ resourceSubscriptions: ['a://1'] }, { room: 2 });
    slow.listen.resourceUpdated('a://1');
    slow.listen.resourceUpdated('a://1');
    expect(slow.ended).toBe('slow');
    expect(slow.messages).toHaveLength(2);
    expect(hub.size).toBe(0);
  });

  it('drops a listen that can no longer hear an upstream, so that its client listens again', async () => {
    const lost = await listen({ resourceSubscriptions: ['a://1'] });
    lost.listen.drop('upstream-lost');
    expect(lost.ended).toBe('upstream-lost');
    expect(hub.size).toBe(0);
  });

  it('drops a listen whose credential expired, so that its client listens again with a fresh one', async () => {
    const expired = await listen({ toolsListChanged: true });
    expired.listen.drop('credential-expired');
    expect(expired.ended).toBe('credential-expired');
    expect(hub.size).toBe(0);
    // Dropped once: a late second drop tells the stream nothing more.
    expired.listen.drop('upstream-lost');
    expect(expired.ended).toBe('credential-expired');
  });

  it('caps listens per principal and on the replica, and frees a place when one closes', async () => {
    const open = (subject: string) =>
      hub.open({
        requestId: 1,
        scope: S1,
        owner: ownerOf(subject),
        filter: {},
        sink: new RecordingSink(),
      });
    const first = await open('user:a');
    await open('user:a');
    await open('user:a');
    expect(await open('user:a')).toEqual({ ok: false, refusal: 'principal-limit' });
    if (!first.ok) throw new Error('refused');
    first.listen.close();
    expect((await open('user:a')).ok).toBe(true);
    await open('user:b');
    await open('user:b');
    expect(hub.size).toBe(5);
    expect(await open('user:c')).toEqual({ ok: false, refusal: 'replica-limit' });
  });

  it('forgets a listen its client closed', async () => {
    const closed = await listen({ resourceSubscriptions: ['a://1'] });
    closed.listen.close();
    closed.listen.resourceUpdated('a://1');
    expect(closed.messages).toHaveLength(1);
    expect(closed.ended).toBeNull();
    expect(hub.size).toBe(0);
  });

  it('ends every listen on shutdown', async () => {
    const sink = await listen({ toolsListChanged: true });
    hub.onModuleDestroy();
    expect(sink.ended).toBe('shutdown');
    expect(hub.size).toBe(0);
  });
});

describe('ListenHub with 2025 sessions', () => {
  const EVERY_LIST = advertisedFilter({
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
  });
  let bus: InProcessEventBus;
  let catalogue: Catalogue;
  let hub: ListenHub;

  beforeEach(() => {
    bus = new InProcessEventBus();
    catalogue = new Catalogue();
    for (const scope of [ALL, S1, S2]) catalogue.set(scope, {});
    hub = new ListenHub(bus, catalogue.read, { perPrincipal: 1, total: 2 });
    hub.onModuleInit();
  });

  afterEach(() => hub.onModuleDestroy());

  /** A session held here whose stream is open here (unless `hearing` says otherwise). */
  function session(
    options: Partial<Omit<SessionListener, 'sink' | 'hearing'>> & { hearing?: boolean } = {},
  ): RecordingSink & { state: { hearing: boolean }; seen: Map<ListKind, string>; leave(): void } {
    const sink = new RecordingSink();
    const state = { hearing: options.hearing ?? true };
    const seen =
      options.seen ??
      new Map<ListKind, string>([
        ['tools', 't0'],
        ['resources', 'r0'],
        ['prompts', 'p0'],
      ]);
    const leave = hub.join({
      scope: options.scope ?? S1,
      filter: options.filter ?? EVERY_LIST,
      seen,
      hearing: () => state.hearing,
      sink,
    });
    return Object.assign(sink, { state, seen, leave });
  }

  /** Publishes a change and lets the debounced announcement run to its end. */
  async function announce(): Promise<void> {
    await bus.publish({ type: 'servers.changed', serverIds: ['s1'] });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  it('tells a session, in 2025 words, of the lists that moved since it last saw them', async () => {
    const held = session();
    // Its own tools/list already showed it the new tools.
    held.seen.set('tools', 't1');
    catalogue.set(S1, { tools: 't1', prompts: 'p1' });
    await announce();
    expect(held.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
    ]);
    expect(held.seen.get('prompts')).toBe('p1');
    await announce();
    expect(held.messages).toHaveLength(1);
  });

  it('tells a session only of the lists its server says may change', async () => {
    const held = session({
      filter: advertisedFilter({
        tools: { listChanged: true },
        resources: { subscribe: true },
        prompts: { listChanged: false },
      }),
    });
    catalogue.set(S1, { tools: 't1', resources: 'r1', prompts: 'p1' });
    await announce();
    expect(held.methods()).toEqual(['notifications/tools/list_changed']);
  });

  it('tells a session only while its stream is open here, then of what it missed', async () => {
    const held = session({ hearing: false });
    catalogue.set(S1, { tools: 't1' });
    await announce();
    expect(held.messages).toEqual([]);
    // Unheard, the change is still news once it hears.
    expect(held.seen.get('tools')).toBe('t0');
    held.state.hearing = true;
    await announce();
    expect(held.methods()).toEqual(['notifications/tools/list_changed']);
  });

  it('ends every session of a server that went away, with a stream here or not', async () => {
    const streaming = session();
    const elsewhere = session({ hearing: false });
    const other = session({ scope: S2 });
    catalogue.set(S1, null);
    await announce();
    expect([streaming.ended, elsewhere.ended]).toEqual(['scope-gone', 'scope-gone']);
    expect(streaming.messages).toEqual([]);
    expect(other.ended).toBeNull();
    expect(hub.size).toBe(1);
  });

  it('leaves a session to its registry when an identity changes, and ends the listens', async () => {
    const held = session();
    const listening = await hub.open({
      requestId: 1,
      scope: S1,
      owner: ownerOf('user:u1'),
      filter: { toolsListChanged: true },
      sink: new RecordingSink(),
    });
    await bus.publish({ type: 'identity.changed', userIds: ['u1'], tokenIds: [], grantIds: [] });
    expect(listening.ok).toBe(true);
    expect(hub.size).toBe(1);
    expect(held.ended).toBeNull();
    expect(held.messages).toEqual([]);
    // It still hears.
    catalogue.set(S1, { tools: 't1' });
    await announce();
    expect(held.methods()).toEqual(['notifications/tools/list_changed']);
  });

  it('forgets a session that left, and counts no session among the listens', async () => {
    const left = session();
    session({ scope: S2 });
    session({ scope: ALL });
    left.leave();
    expect(hub.size).toBe(2);
    const open = (subject: string) =>
      hub.open({
        requestId: 1,
        scope: S1,
        owner: ownerOf(subject),
        filter: {},
        sink: new RecordingSink(),
      });
    expect((await open('user:a')).ok).toBe(true);
    expect((await open('user:b')).ok).toBe(true);
    expect(await open('user:c')).toEqual({ ok: false, refusal: 'replica-limit' });
    catalogue.set(S1, { tools: 't1' });
    await announce();
    expect(left.messages).toEqual([]);
    expect(left.ended).toBeNull();
  });

  it('ends sessions on shutdown', async () => {
    const held = session();
    hub.onModuleDestroy();
    expect(held.ended).toBe('shutdown');
    expect(hub.size).toBe(0);
  });
});

function ownerOf(subject: string) {
  return { subject, tokenId: null };
}
