import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { waitFor } from '../../../test/support/wait-for';
import { type PorticoEvent, UPSTREAM_LISTS, type UpstreamList } from '../../events/event-bus';
import { InProcessEventBus } from '../../events/in-process-event-bus';
import { Metrics } from '../../observability/metrics';
import { type UpstreamClient } from '../../upstream/upstream-client';
import { type ListVersions } from '../listen/list-versions';
import { ListenHub } from '../listen/listen-hub';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { type ClientStream, type StreamOwner } from '../streams/client-stream';
import { type ResourceWatch } from '../listen/resource-watch';
import { SessionRegistry } from './session-registry.service';
import { type SessionState, type SessionStore } from './session.store';
import { type StreamEvents } from './stream-events.store';

/** A GET stream as the client holds it: what it was sent, whether it ended. */
class RecordingStream implements ClientStream {
  readonly messages: JSONRPCMessage[] = [];
  open = true;
  private readonly closed: (() => void)[] = [];

  onClose(listener: () => void): void {
    this.closed.push(listener);
  }

  prime(): void {}

  message(message: JSONRPCMessage): void {
    this.messages.push(message);
  }

  end(): void {
    if (!this.open) return;
    this.open = false;
    for (const listener of this.closed) listener();
  }

  methods(): string[] {
    return this.messages.map((message) => ('method' in message ? message.method : '?'));
  }
}

const S1: McpScope = { kind: 'server', serverId: 's1' };

describe('SessionRegistry with the listen hub', () => {
  let bus: InProcessEventBus;
  let versions: Map<string, Record<UpstreamList, string>>;
  let hub: ListenHub;
  let registry: SessionRegistry;
  let stored: JSONRPCMessage[];
  let relayed: PorticoEvent[];

  beforeEach(() => {
    bus = new InProcessEventBus();
    versions = new Map([[scopeKey(S1), { tools: 't0', resources: 'r0', prompts: 'p0' }]]);
    const read = async (scope: McpScope): Promise<ListVersions | null> => {
      const current = versions.get(scopeKey(scope));
      return current ? { version: (kind) => current[kind], holds: () => false } : null;
    };
    hub = new ListenHub(bus, read);
    stored = [];
    const events = {
      append: async (_session: string, streamId: string, message: JSONRPCMessage) =>
        `${streamId}.${stored.push(message)}`,
    } as unknown as StreamEvents;
    registry = new SessionRegistry(
      { value: 'replica-1' },
      {} as SessionStore,
      events,
      { release: async () => undefined } as unknown as UpstreamClient,
      bus,
      new Metrics(),
      hub,
      {} as ResourceWatch,
    );
    relayed = [];
    bus.subscribe((event) => {
      if (event.type === 'mcp.to-client') relayed.push(event);
    });
    hub.onModuleInit();
    registry.onModuleInit();
  });

  afterEach(async () => {
    await registry.onModuleDestroy();
    hub.onModuleDestroy();
  });

  function session(id: string): SessionState {
    return {
      id,
      serverId: 's1',
      subject: 'user:u1',
      userId: 'u1',
      transport: 'streamable-http',
      protocolVersion: '2025-11-25',
      initializeParams: null,
      logLevel: null,
      subscriptions: [],
      exchangeable: false,
      lastSeenAt: new Date(),
    };
  }

  /** The session held here, its lists seen as they are now, and its GET stream opened here. */
  function streaming(id: string, owner: StreamOwner): RecordingStream {
    const runtime = registry.obtain(session(id));
    for (const kind of UPSTREAM_LISTS) runtime.seen.set(kind, versions.get(scopeKey(S1))![kind]);
    const stream = new RecordingStream();
    runtime.openSessionStream(stream, owner);
    return stream;
  }

  async function change(next: Partial<Record<UpstreamList, string>> | null): Promise<void> {
    if (next === null) versions.delete(scopeKey(S1));
    else versions.set(scopeKey(S1), { ...versions.get(scopeKey(S1))!, ...next });
    await bus.publish({ type: 'servers.changed', serverIds: ['s1'] });
  }

  it('tells a stream of every list Portico says may change, stored for resumption', async () => {
    const stream = streaming('a', { subject: 'user:u1', tokenId: null });
    await change({ tools: 't1', resources: 'r1', prompts: 'p1' });
    await waitFor(() => stream.messages.length === 3, 'the three lists to be announced');
    expect(stream.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
    ]);
    expect(stored).toEqual(stream.messages);
  });

  it('leaves a session whose stream is elsewhere to the replica holding it', async () => {
    const here = streaming('a', { subject: 'user:u1', tokenId: null });
    registry.obtain(session('b'));
    await change({ tools: 't1' });
    await waitFor(() => here.messages.length === 1, 'the stream here to hear it');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(relayed).toEqual([]);
    expect(stored).toHaveLength(1);
  });

  it('closes the sessions of a server that went away, with a stream here or not', async () => {
    const stream = streaming('a', { subject: 'user:u1', tokenId: null });
    registry.obtain(session('b'));
    await change(null);
    await waitFor(() => registry.all().length === 0, 'both sessions to close');
    expect(stream.open).toBe(false);
    expect(hub.size).toBe(0);
  });

  it('ends the streams a changed identity opened, and keeps the session, which hears on a new stream', async () => {
    const revoked = streaming('a', { subject: 'user:u1', tokenId: 't1' });
    const bystander = streaming('b', { subject: 'user:u1', tokenId: 't2' });
    await bus.publish({ type: 'identity.changed', userIds: [], tokenIds: ['t1'], grantIds: [] });
    expect(revoked.open).toBe(false);
    expect(revoked.messages).toEqual([]);
    expect(bystander.open).toBe(true);
    expect(registry.local('a')).toBeDefined();

    const reopened = new RecordingStream();
    registry.local('a')!.openSessionStream(reopened, { subject: 'user:u1', tokenId: 't3' });
    await change({ prompts: 'p1' });
    await waitFor(() => reopened.messages.length === 1, 'the new stream to hear the change');
    expect(reopened.methods()).toEqual(['notifications/prompts/list_changed']);
    expect(revoked.messages).toEqual([]);
  });

  it('ends the requests in progress a changed identity sent, aborting their work', async () => {
    const runtime = registry.obtain(session('a'));
    const answers: Record<string, JSONRPCMessage[]> = { revoked: [], bystander: [] };
    const signals: Record<string, AbortSignal> = {};
    const inFlight = (name: string, id: number, tokenId: string) =>
      runtime.serve(
        id,
        { write: () => undefined, finish: (m) => answers[name]!.push(m), cancel: () => undefined },
        (signal) => {
          signals[name] = signal;
          return new Promise(() => undefined);
        },
        { subject: 'user:u1', tokenId },
      );
    void inFlight('revoked', 1, 't1');
    void inFlight('bystander', 2, 't2');
    await bus.publish({ type: 'identity.changed', userIds: [], tokenIds: ['t1'], grantIds: [] });
    expect(signals.revoked!.aborted).toBe(true);
    expect(answers.revoked).toEqual([
      expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32000 }) }),
    ]);
    expect(signals.bystander!.aborted).toBe(false);
    expect(answers.bystander).toEqual([]);
    expect(runtime.inFlight).toBe(1);
  });
});
