import { waitFor } from '../../../test/support/wait-for';
import {
  type Catalogue,
  ownerOf,
  RecordingSink,
  S1,
  S2,
  startHub,
} from '../../../test/support/listen-hubs';
import { type InProcessEventBus } from '../../events/in-process-event-bus';
import { type ListenHub, type ListenRequest, type OpenListen, SUBSCRIPTION_ID } from './listen-hub';

describe('ListenHub', () => {
  let bus: InProcessEventBus;
  let catalogue: Catalogue;
  let hub: ListenHub;
  /** The counts of open listens the hub reported, in order. */
  let counted: number[];

  beforeEach(() => {
    counted = [];
    const reports = { warn: () => undefined, listens: (open: number) => counted.push(open) };
    ({ bus, catalogue, hub } = startHub({ perPrincipal: 3, total: 5 }, reports));
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

  it("tells the listens whose lists hold an upstream's members what that upstream said changed", async () => {
    const tools = await listen({ toolsListChanged: true, promptsListChanged: true });
    const otherScope = await listen({ toolsListChanged: true }, { scope: S2 });
    catalogue.hold(S1, 'tools', 'g1');
    catalogue.hold(S2, 'tools', 'g2');
    await bus.publish({ type: 'lists.announced', gatewayId: 'g1', lists: ['tools', 'prompts'] });
    await waitFor(() => tools.messages.length === 2, 'the tools listen to hear the upstream');
    expect(tools.methods()[1]).toBe('notifications/tools/list_changed');
    await bus.publish({ type: 'lists.announced', gatewayId: 'g1', lists: ['tools'] });
    await waitFor(() => tools.messages.length === 3, 'the upstream said so again');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tools.methods()).toHaveLength(3);
    expect(otherScope.methods()).toEqual(['notifications/subscriptions/acknowledged']);
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
    // Refusals count nothing: what the replica reports is what it holds.
    expect(counted).toEqual([1, 2, 3, 2, 3, 4, 5]);
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
    expect(counted).toEqual([1, 0]);
  });
});
