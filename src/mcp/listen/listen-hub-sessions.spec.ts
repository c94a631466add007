import {
  ALL,
  type Catalogue,
  ownerOf,
  RecordingSink,
  S1,
  S2,
  startHub,
} from '../../../test/support/listen-hubs';
import { type InProcessEventBus } from '../../events/in-process-event-bus';
import { type UpstreamList } from '../../events/event-bus';
import { advertisedFilter } from './listen-filter';
import { type ListenHub, type SessionListener } from './listen-hub';

describe('ListenHub with 2025 sessions', () => {
  const EVERY_LIST = advertisedFilter({
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
  });
  let bus: InProcessEventBus;
  let catalogue: Catalogue;
  let hub: ListenHub;

  beforeEach(() => ({ bus, catalogue, hub } = startHub({ perPrincipal: 1, total: 2 })));

  afterEach(() => hub.onModuleDestroy());

  /** A session held here whose stream is open here (unless `hearing` says otherwise). */
  function session(
    options: Partial<Omit<SessionListener, 'sink' | 'hearing'>> & { hearing?: boolean } = {},
  ): RecordingSink & {
    state: { hearing: boolean };
    seen: Map<UpstreamList, string>;
    leave(): void;
  } {
    const sink = new RecordingSink();
    const state = { hearing: options.hearing ?? true };
    const seen =
      options.seen ??
      new Map<UpstreamList, string>([
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
