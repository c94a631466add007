import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type Settings } from '../../src/config/settings';
import { FaultProxy } from '../support/fault-proxy';
import { waitFor } from '../support/wait-for';
import { RedisEventBus } from '../../src/events/redis-event-bus';
import { catalogChange, heard, timed } from '../support/bus-events';

const redisUrl = process.env.REDIS_URL;

/** Needs a Redis server (REDIS_URL), as in the PostgreSQL run; skipped without one. */
const describeOnRedis = redisUrl ? describe : describe.skip;

/** A database that answers, or one that does not, for the resyncs while Redis is away. */
const database = { query: () => Promise.resolve([]) } as unknown as DataSource;
const databaseAway = {
  query: () => Promise.reject(new Error('connect ECONNREFUSED')),
} as unknown as DataSource;

const PUBLISH_TIMEOUT_MS = 300;

describeOnRedis('RedisEventBus', () => {
  const started: RedisEventBus[] = [];
  const proxies: FaultProxy[] = [];

  async function bus(
    namespace: string,
    url = redisUrl!,
    { resyncWhileDownMs = 0, dataSource = database } = {},
  ): Promise<RedisEventBus> {
    const config = {
      redisUrl: url,
      redisNamespace: namespace,
      eventBus: {
        publishTimeoutMs: PUBLISH_TIMEOUT_MS,
        queueMaxBytes: 1024 * 1024,
        resyncWhileDownMs,
        redisCommandTimeoutMs: 500,
        redisConnectTimeoutMs: 1000,
      },
    } as Settings;
    const replica = new RedisEventBus(config, { value: randomUUID() }, dataSource);
    await replica.onModuleInit();
    started.push(replica);
    return replica;
  }

  async function proxy(): Promise<FaultProxy> {
    const started = await FaultProxy.before(redisUrl!);
    proxies.push(started);
    return started;
  }

  afterEach(async () => {
    await Promise.all(started.splice(0).map((replica) => replica.onModuleDestroy()));
    await Promise.all(proxies.splice(0).map((started) => started.close()));
  });

  it('reaches the replicas of its REDIS_NAMESPACE, and no other deployment on the same Redis', async () => {
    const namespace = `test-${randomUUID()}`;
    const publisher = await bus(namespace);
    const sibling = heard(await bus(namespace));
    const other = heard(await bus(`${namespace}-other`));
    const otherSibling = await bus(`${namespace}-other`);

    await publisher.publish(catalogChange('from-first'));
    await waitFor(() => sibling.includes('from-first'), 'the sibling replica to hear it');
    // Redis delivers in the order it was given: once the other deployment hears its own later
    // event, an earlier one of the first deployment would have reached it before.
    await otherSibling.publish(catalogChange('from-other'));
    await waitFor(() => other.includes('from-other'), 'the other deployment to hear its own');
    expect(other).toEqual(['from-other']);
    expect(sibling).toEqual(['from-first']);
  });

  it('publishes within its bound while Redis drops packets, and the other replicas hear it all once it is back', async () => {
    const namespace = `test-${randomUUID()}`;
    const partition = await proxy();
    const cut = await bus(namespace, partition.proxied(redisUrl!));
    const cutHeard = heard(cut);
    const sibling = heard(await bus(namespace));

    await partition.setMode('blackhole');
    // The first publish waits its bound at most; once the channel is known to hang, none waits.
    expect(await timed(cut.publish(catalogChange('during-1')))).toBeLessThan(
      PUBLISH_TIMEOUT_MS + 1000,
    );
    expect(await timed(cut.publish(catalogChange('during-2')))).toBeLessThan(1000);
    // The unanswered health check finds the connection dead in seconds, not minutes.
    await waitFor(() => !cut.state().listening, 'the cut replica to notice', 8000);
    expect(sibling).toEqual([]);
    expect(cut.state().queued).toBeGreaterThan(0);

    await partition.setMode('pass');
    await waitFor(() => sibling.includes('during-2'), 'the sibling to hear what was queued');
    expect([...new Set(sibling)]).toEqual(['during-1', 'during-2']);
    // What the cut replica may have missed meanwhile is dropped from its caches.
    await waitFor(() => cut.state().listening, 'the cut replica to listen again');
    expect(cutHeard).toEqual(['during-1', 'during-2', '*']);
    expect(cut.state()).toMatchObject({ queued: 0, resyncs: 1 });
  });

  it('answers publishes at once while Redis refuses, and drops every cache once it hears again', async () => {
    const namespace = `test-${randomUUID()}`;
    const outage = await proxy();
    const cut = await bus(namespace, outage.proxied(redisUrl!));
    const cutHeard = heard(cut);
    const sibling = await bus(namespace);
    const siblingHeard = heard(sibling);

    await outage.setMode('refuse');
    await waitFor(() => !cut.state().listening, 'the cut replica to notice');
    expect(await timed(cut.publish(catalogChange('from-cut')))).toBeLessThan(1000);
    // Lost for the cut replica: Redis keeps nothing for a subscriber that is away.
    await sibling.publish(catalogChange('missed'));

    await outage.setMode('pass');
    await waitFor(() => cutHeard.includes('*'), 'the cut replica to resync');
    await waitFor(() => siblingHeard.includes('from-cut'), 'the sibling to hear the queued event');
    expect(cutHeard).toEqual(['from-cut', '*']);
  });

  it('subscribes again after a reconnect that is lost at its subscribe, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const namespace = `test-${randomUUID()}`;
      const flaky = await proxy();
      const cut = await bus(namespace, flaky.proxied(redisUrl!));
      const cutHeard = heard(cut);
      const sibling = await bus(namespace);

      // The reconnect passes its ready check, then is lost when it subscribes; the next one holds.
      flaky.cutAt(/\r\nsubscribe\r\n/i);
      flaky.reset();
      await waitFor(() => !cut.state().listening, 'the cut replica to notice');
      await waitFor(() => cut.state().listening, 'the cut replica to listen again', 8000);
      await sibling.publish(catalogChange('after'));
      await waitFor(() => cutHeard.includes('after'), 'the cut replica to hear again');
      // A rejection goes unhandled once a turn of the event loop has passed without a handler.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('drops every cache now and then while it hears nothing, but not while the database is away too', async () => {
    const outage = await proxy();
    const deaf = heard(
      await bus(`test-${randomUUID()}`, outage.proxied(redisUrl!), { resyncWhileDownMs: 200 }),
    );
    const alone = heard(
      await bus(`test-${randomUUID()}`, outage.proxied(redisUrl!), {
        resyncWhileDownMs: 200,
        dataSource: databaseAway,
      }),
    );
    await outage.setMode('refuse');
    await waitFor(() => deaf.length >= 3, 'the deaf replica to resync again and again');
    expect(new Set(deaf)).toEqual(new Set(['*']));
    // Its caches are all it has: they stay.
    expect(alone).toEqual([]);
  });
});
