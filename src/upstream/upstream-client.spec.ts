import { type EventBus } from '../events/event-bus';
import { type ParkedCalls } from './sessions/parked-calls';
import { type OpenOptions } from './upstream-connection';
import { UpstreamClient } from './upstream-client';
import { type UpstreamConnector } from './upstream-connector.service';
import { type UpstreamTarget } from './upstream-target';
import { type UpstreamTargets } from './upstream-targets.service';

function targetWith(credentials: Record<string, unknown>): UpstreamTarget {
  return { gatewayId: 'gw', endpoint: { credentials } } as unknown as UpstreamTarget;
}

describe('UpstreamClient.open', () => {
  const opened: OpenOptions[] = [];
  const connector = {
    open: jest.fn((_target: UpstreamTarget, options: OpenOptions) => {
      opened.push(options);
      return Promise.resolve({});
    }),
  };
  const client = new UpstreamClient(
    connector as unknown as UpstreamConnector,
    {} as UpstreamTargets,
    {} as EventBus,
    {} as ParkedCalls,
  );

  beforeEach(() => (opened.length = 0));

  it("opens a connection of the caller's own in the context of whom it acts for", async () => {
    const perUser = targetWith({ type: 'oauth', mode: 'per-user' });
    await client.open(perUser, { capabilities: {}, actingFor: { userId: 'alice' } });
    await client.open(perUser, { capabilities: {}, actingFor: { userId: 'bob' } });
    const exchanged = targetWith({ type: 'token-exchange' });
    await client.open(exchanged, { capabilities: {}, actingFor: { userId: 'a', subject: 's' } });
    await client.open(exchanged, { capabilities: {} });
    expect(opened.map((options) => options.authorization)).toEqual([
      'user:alice',
      'user:bob',
      'caller:s',
      'portico',
    ]);
  });

  it("uses the gateway's one credential where the upstream has no per-user tokens", async () => {
    await client.open(targetWith({ type: 'bearer', token: 'x' }), {
      capabilities: { elicitation: {} },
      listen: true,
      actingFor: { userId: 'alice' },
    });
    expect(opened).toEqual([
      {
        capabilities: { elicitation: {} },
        listen: true,
        actingFor: { userId: 'alice' },
        authorization: 'gateway',
      },
    ]);
  });
});

describe('UpstreamClient on a catalogue change', () => {
  /** A bus whose one subscriber hears what `receive` is given. */
  function eventBus(): { bus: EventBus; receive: (event: unknown) => void } {
    let listener: (event: unknown) => void = () => undefined;
    const bus = {
      subscribe: (subscriber: typeof listener) => {
        listener = subscriber;
        return () => undefined;
      },
    };
    return { bus: bus as unknown as EventBus, receive: (event) => listener(event) };
  }

  it('has the connector forget a gateway that is gone or deactivated, never one it could not read', async () => {
    const { bus, receive } = eventBus();
    const found: Record<string, () => Promise<UpstreamTarget | null>> = {
      active: () => Promise.resolve(targetWith({ type: 'none' })),
      gone: () => Promise.resolve(null),
      unreadable: () => Promise.reject(new Error('the database is away')),
    };
    const forgotten: string[] = [];
    const client = new UpstreamClient(
      { forget: (gatewayId: string) => forgotten.push(gatewayId) } as unknown as UpstreamConnector,
      { find: (gatewayId: string) => found[gatewayId]!() } as unknown as UpstreamTargets,
      bus,
      {} as ParkedCalls,
    );
    client.onModuleInit();
    try {
      receive({ type: 'catalog.changed', gatewayIds: ['active', 'gone', 'unreadable'] });
      await new Promise((resolve) => setImmediate(resolve));
      expect(forgotten).toEqual(['gone']);
    } finally {
      await client.onModuleDestroy();
    }
  });

  it('reads the changed gateways several at a time, not one after another', async () => {
    const { bus, receive } = eventBus();
    const asked: string[] = [];
    let bothAsked: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (bothAsked = resolve));
    const forgotten: string[] = [];
    const client = new UpstreamClient(
      { forget: (gatewayId: string) => forgotten.push(gatewayId) } as unknown as UpstreamConnector,
      {
        // The first read answers only once the second has been asked.
        find: async (gatewayId: string) => {
          asked.push(gatewayId);
          if (asked.length === 2) bothAsked();
          await both;
          return null;
        },
      } as unknown as UpstreamTargets,
      bus,
      {} as ParkedCalls,
    );
    client.onModuleInit();
    try {
      receive({ type: 'catalog.changed', gatewayIds: ['first', 'second'] });
      await new Promise((resolve) => setImmediate(resolve));
      expect(forgotten.sort()).toEqual(['first', 'second']);
    } finally {
      await client.onModuleDestroy();
    }
  });
});
