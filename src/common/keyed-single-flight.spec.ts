import { KeyedSingleFlight } from './keyed-single-flight';

/** A task whose runs the test finishes by hand. */
function controlledTask() {
  const finishers: ((value: number) => void)[] = [];
  let started = 0;
  const task = () =>
    new Promise<number>((resolve) => {
      started += 1;
      const run = started;
      finishers.push(() => resolve(run));
    });
  return {
    task,
    started: () => started,
    finish: async (index: number) => {
      finishers[index]!(index + 1);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedSingleFlight', () => {
  it('lets calls made before the run started share it', async () => {
    const flights = new KeyedSingleFlight<number>();
    const control = controlledTask();
    const calls = [flights.run('g', control.task), flights.run('g', control.task)];
    await tick();
    await control.finish(0);
    expect(await Promise.all(calls)).toEqual([1, 1]);
    expect(control.started()).toBe(1);
  });

  it('runs one task per key at a time and lets a burst share one follow-up run', async () => {
    const flights = new KeyedSingleFlight<number>();
    const control = controlledTask();
    const first = flights.run('g', control.task);
    await tick();
    const burst = [1, 2, 3].map(() => flights.run('g', control.task));
    await tick();
    expect(control.started()).toBe(1);
    expect(flights.busy('g')).toBe(true);

    await control.finish(0);
    expect(await first).toBe(1);
    expect(control.started()).toBe(2);
    await control.finish(1);
    expect(await Promise.all(burst)).toEqual([2, 2, 2]);
    expect(flights.busy('g')).toBe(false);
  });

  it('runs different keys side by side', async () => {
    const flights = new KeyedSingleFlight<number>();
    const control = controlledTask();
    const a = flights.run('a', control.task);
    const b = flights.run('b', control.task);
    await tick();
    expect(control.started()).toBe(2);
    await control.finish(0);
    await control.finish(1);
    expect(await Promise.all([a, b])).toEqual([1, 2]);
  });

  it('goes on after a failed run, and idle waits for everything queued', async () => {
    const flights = new KeyedSingleFlight<string>();
    let reject!: (error: Error) => void;
    const failed = flights.run('g', () => new Promise<string>((_resolve, r) => (reject = r)));
    await tick();
    const next = flights.run('g', async () => 'ok');
    reject(new Error('down'));
    await expect(failed).rejects.toThrow('down');
    await flights.idle();
    expect(await next).toBe('ok');
    expect(flights.busy('g')).toBe(false);
  });

  it('lets a joining call share the run going now instead of queueing another', async () => {
    const flights = new KeyedSingleFlight<number>();
    const control = controlledTask();
    const first = flights.run('g', control.task);
    await tick();
    const joined = flights.join('g', control.task);
    await control.finish(0);
    expect(await Promise.all([first, joined])).toEqual([1, 1]);
    expect(control.started()).toBe(1);
    expect(flights.busy('g')).toBe(false);
  });

  it('lets a joining call share a queued run, and start one when nothing runs', async () => {
    const flights = new KeyedSingleFlight<number>();
    const control = controlledTask();
    const first = flights.run('g', control.task);
    await tick();
    const queued = flights.run('g', control.task);
    const joined = flights.join('g', control.task);
    await control.finish(0);
    await control.finish(1);
    expect(await Promise.all([first, queued, joined])).toEqual([1, 2, 2]);
    const fresh = flights.join('g', control.task);
    await tick();
    await control.finish(2);
    expect(await fresh).toBe(3);
  });
});
