import { BacklogBudget, DeliveryQueue, HOLDING_BYTES, onceKey } from './delivery-queue';

const KIB = 'x'.repeat(1024);
/** A message's size as the queue is given it: its JSON text's length. */
const size = (message: unknown) => JSON.stringify(message).length;

describe('DeliveryQueue', () => {
  it('delivers in order, one at a time', async () => {
    const queue = new DeliveryQueue(1 << 20);
    const seen: string[] = [];
    let running = 0;
    for (const name of ['a', 'b', 'c'])
      queue.add(size(name), async () => {
        running += 1;
        expect(running).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(name);
        running -= 1;
      });
    await new Promise<void>((resolve) => queue.add(size('end'), async () => resolve(), true));
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('refuses what would hold more than its bound undelivered, and takes more once it drains', async () => {
    const queue = new DeliveryQueue(3 * (size({ n: 1, data: KIB }) + HOLDING_BYTES) + 100);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const delivered: number[] = [];
    const taken = [1, 2, 3, 4, 5, 6].map((n) =>
      queue.add(size({ n, data: KIB }), async () => {
        if (n === 1) await gate;
        delivered.push(n);
      }),
    );
    // Each message costs a little over 1.5 KiB held: three fit, the rest are refused.
    expect(taken).toEqual([true, true, true, false, false, false]);
    release();
    await new Promise<void>((resolve) => queue.add(size(null), async () => resolve(), true));
    expect(delivered).toEqual([1, 2, 3]);
    expect(queue.add(size({ n: 7, data: KIB }), async () => undefined)).toBe(true);
  });

  it('takes a message larger than its bound when nothing waits, and the answer however far behind', () => {
    const queue = new DeliveryQueue(1024);
    const never = () => new Promise<void>(() => undefined);
    expect(queue.add(size({ data: KIB.repeat(4) }), never)).toBe(true);
    expect(queue.add(size({ data: 'x' }), never)).toBe(false);
    expect(queue.add(size({ data: KIB }), never, true)).toBe(true);
  });

  it('goes on after a delivery that fails', async () => {
    const queue = new DeliveryQueue(1 << 20);
    queue.add(size('bad'), () => Promise.reject(new Error('gone')));
    await expect(
      new Promise<string>((resolve) => queue.add(size('next'), async () => resolve('delivered'))),
    ).resolves.toBe('delivered');
  });

  it('holds a resource update or a list change once while it waits, however often it comes', async () => {
    const queue = new DeliveryQueue(1 << 20);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const delivered: string[] = [];
    const send = (message: { method: string; params?: unknown }) => {
      const text = JSON.stringify(message);
      return queue.add(
        text.length,
        async () => {
          await gate;
          delivered.push(text);
        },
        false,
        onceKey(message, text),
      );
    };
    const updated = (uri: string) => ({
      method: 'notifications/resources/updated',
      params: { uri },
    });
    for (let i = 0; i < 1_000; i += 1) {
      expect(send(updated(`a://${i % 3}`))).toBe(true);
      expect(send({ method: 'notifications/tools/list_changed' })).toBe(true);
    }
    send({ method: 'notifications/progress', params: { progress: 1 } });
    send({ method: 'notifications/progress', params: { progress: 1 } });
    release();
    await new Promise<void>((resolve) => queue.add(size(null), async () => resolve(), true));
    expect(delivered.map((text) => JSON.parse(text))).toEqual([
      updated('a://0'),
      { method: 'notifications/tools/list_changed' },
      updated('a://1'),
      updated('a://2'),
      { method: 'notifications/progress', params: { progress: 1 } },
      { method: 'notifications/progress', params: { progress: 1 } },
    ]);
    // Once one has gone out, the next change is sent again.
    send(updated('a://0'));
    await new Promise<void>((resolve) => queue.add(size(null), async () => resolve(), true));
    expect(delivered).toHaveLength(7);
  });

  it('refuses what would take the queues of a replica together past their budget', async () => {
    const message = size({ data: KIB }) + HOLDING_BYTES;
    const budget = new BacklogBudget(4 * message);
    const queues = [1, 2, 3].map(() => new DeliveryQueue(1 << 20, budget));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const taken = queues.flatMap((queue) =>
      [1, 2].map(() => queue.add(size({ data: KIB }), () => gate)),
    );
    expect(taken).toEqual([true, true, true, true, false, false]);
    // An answer always gets in.
    expect(queues[2]!.add(size({ data: KIB }), () => gate, true)).toBe(true);
    release();
    await Promise.all(
      queues.map(
        (queue) => new Promise<void>((resolve) => queue.add(0, async () => resolve(), true)),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.held).toBe(0);
    expect(queues[2]!.add(size({ data: KIB }), async () => undefined)).toBe(true);
  });
});
