import { waitFor } from '../../test/support/wait-for';
import { OutboundQueue } from './outbound-queue';

/** A channel the test opens and closes: closed, a send fails at once, or hangs with `hang`. */
function channel() {
  const state = { open: true, hang: false, sent: [] as string[], failures: 0 };
  const hanging: (() => void)[] = [];
  const send = (payload: string) => {
    if (state.hang)
      return new Promise<void>((_resolve, reject) =>
        hanging.push(() => reject(new Error('timed out'))),
      );
    if (!state.open) {
      state.failures += 1;
      return Promise.reject(new Error('refused'));
    }
    state.sent.push(payload);
    return Promise.resolve();
  };
  /** Ends the sends that hang, as the channel's own timeout would. */
  const timeOut = () => hanging.splice(0).forEach((fail) => fail());
  return { state, send, timeOut };
}

function queueOn(send: (payload: string) => Promise<void>, maxBytes = 1024) {
  const log: string[] = [];
  const queue = new OutboundQueue({
    send,
    maxBytes,
    resyncPayload: () => 'RESYNC',
    onFailing: () => log.push('failing'),
    onRecovered: () => log.push('recovered'),
    onDropped: () => log.push('dropped'),
  });
  return { queue, log };
}

async function elapsed(work: Promise<unknown>): Promise<number> {
  const start = Date.now();
  await work;
  return Date.now() - start;
}

describe('OutboundQueue', () => {
  const queues: OutboundQueue[] = [];
  afterEach(() => queues.splice(0).forEach((queue) => queue.close()));

  it('sends in order and resolves each publish once its payload is sent', async () => {
    const { state, send } = channel();
    const { queue } = queueOn(send);
    queues.push(queue);
    await Promise.all(['a', 'b', 'c'].map((payload) => queue.push(payload, 5000)));
    expect(state.sent).toEqual(['a', 'b', 'c']);
    expect(queue.length).toBe(0);
  });

  it('never rejects, answers at once while the channel refuses, and catches up in order once it is back', async () => {
    const { state, send } = channel();
    const { queue, log } = queueOn(send);
    queues.push(queue);
    state.open = false;
    // The first send fails at once, and its publisher is let go with it.
    expect(await elapsed(queue.push('a', 5000))).toBeLessThan(1000);
    expect(state.failures).toBeGreaterThan(0);
    // Known to fail: later publishes do not wait for the channel at all.
    expect(await elapsed(queue.push('b', 5000))).toBeLessThan(1000);
    expect(queue.length).toBe(2);
    state.open = true;
    queue.kick();
    await waitFor(() => state.sent.length === 2, 'the queue to drain');
    expect(state.sent).toEqual(['a', 'b']);
    expect(log).toEqual(['failing', 'recovered']);
  });

  it('holds a publish no longer than its timeout while the channel hangs, and the next ones not at all', async () => {
    const { state, send, timeOut } = channel();
    const { queue, log } = queueOn(send);
    queues.push(queue);
    state.hang = true;
    const first = await elapsed(queue.push('a', 200));
    expect(first).toBeGreaterThanOrEqual(150);
    expect(first).toBeLessThan(2000);
    expect(log).toEqual(['failing']);
    expect(await elapsed(queue.push('b', 5000))).toBeLessThan(1000);
    state.hang = false;
    timeOut();
    await waitFor(() => state.sent.length === 2, 'the queue to drain');
    expect(state.sent).toEqual(['a', 'b']);
  });

  it('drops what does not fit, and sends a resync once what it kept has gone out', async () => {
    const { state, send } = channel();
    const { queue, log } = queueOn(send, 10);
    queues.push(queue);
    state.open = false;
    await queue.push('aaaa', 0);
    await queue.push('bbbb', 0);
    await queue.push('cccc', 0);
    await queue.push('dddd', 0);
    expect(queue.dropped).toBe(2);
    expect(queue.queuedBytes).toBe(8);
    state.open = true;
    queue.kick();
    await waitFor(() => state.sent.length === 3, 'the queue and the resync to go out');
    expect(state.sent).toEqual(['aaaa', 'bbbb', 'RESYNC']);
    expect(log).toContain('dropped');
  });

  it('releases every waiting publisher when closed', async () => {
    const { state, send } = channel();
    const { queue } = queueOn(send);
    state.hang = true;
    const waiting = queue.push('a', 60_000);
    queue.close();
    expect(await elapsed(waiting)).toBeLessThan(1000);
  });
});
