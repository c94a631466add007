import { randomUUID } from 'node:crypto';
import { type AppConfig } from '../config/app-config';
import { type PorticoEvent } from './event-bus';
import { waitFor } from '../../test/support/wait-for';
import { RedisEventBus } from './redis-event-bus';

const redisUrl = process.env.REDIS_URL;

/** Needs a Redis server (REDIS_URL), as in the PostgreSQL run; skipped without one. */
const describeOnRedis = redisUrl ? describe : describe.skip;

describeOnRedis('RedisEventBus', () => {
  const started: RedisEventBus[] = [];

  async function bus(namespace: string): Promise<RedisEventBus> {
    const config = { redisUrl, redisNamespace: namespace } as AppConfig;
    const replica = new RedisEventBus(config, { value: randomUUID() });
    await replica.onModuleInit();
    started.push(replica);
    return replica;
  }

  /** The gateway ids of the catalog changes a bus hears from now on. */
  function heard(replica: RedisEventBus): string[] {
    const ids: string[] = [];
    replica.subscribe((event: PorticoEvent) => {
      if (event.type === 'catalog.changed') ids.push(...event.gatewayIds);
    });
    return ids;
  }

  afterEach(async () => {
    await Promise.all(started.splice(0).map((replica) => replica.onModuleDestroy()));
  });

  it('reaches the replicas of its REDIS_NAMESPACE, and no other deployment on the same Redis', async () => {
    const namespace = `test-${randomUUID()}`;
    const publisher = await bus(namespace);
    const sibling = heard(await bus(namespace));
    const other = heard(await bus(`${namespace}-other`));
    const otherSibling = await bus(`${namespace}-other`);

    await publisher.publish({ type: 'catalog.changed', gatewayIds: ['from-first'] });
    await waitFor(() => sibling.includes('from-first'), 'the sibling replica to hear it');
    // Redis delivers in the order it was given: once the other deployment hears its own later
    // event, an earlier one of the first deployment would have reached it before.
    await otherSibling.publish({ type: 'catalog.changed', gatewayIds: ['from-other'] });
    await waitFor(() => other.includes('from-other'), 'the other deployment to hear its own');
    expect(other).toEqual(['from-other']);
    expect(sibling).toEqual(['from-first']);
  });
});
