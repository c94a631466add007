import { Pacer } from './pacer';

/** Holds the thread for `ms`, as a CPU-bound step does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Runs `steps` busy steps, each after a turn; says which steps other work ran before. */
async function loop(steps: number, stepMs: number): Promise<number[]> {
  const pacer = new Pacer();
  const ranBefore: number[] = [];
  let other = false;
  const schedule = () =>
    setImmediate(() => {
      other = true;
    });
  schedule();
  for (let step = 0; step < steps; step++) {
    await pacer.turn();
    if (other) {
      ranBefore.push(step);
      other = false;
      schedule();
    }
    busy(stepMs);
  }
  return ranBefore;
}

describe('Pacer', () => {
  it('lets other work run once a loop has held the thread for a slice', async () => {
    const ranBefore = await loop(12, 4);
    // 48 ms of work in 10 ms slices: other work ran between steps, several times.
    expect(ranBefore.length).toBeGreaterThanOrEqual(3);
    expect(ranBefore[0]).toBeGreaterThan(0);
  });

  it('does not yield within a slice', async () => {
    expect(await loop(5, 0)).toEqual([]);
  });
});
