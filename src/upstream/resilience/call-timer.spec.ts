import { CallTimer } from './call-timer';
import { UpstreamTimeout } from '../upstream-error';

const LIMITS = { timeoutMs: 1000, maxMs: 60_000 };

describe('CallTimer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fires after the timeout, counted from the last restart', () => {
    const fired = jest.fn();
    const timer = new CallTimer(LIMITS, fired);
    jest.advanceTimersByTime(900);
    timer.restart();
    jest.advanceTimersByTime(900);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(100);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(fired.mock.calls[0][0]).toBeInstanceOf(UpstreamTimeout);
  });

  it('fires at the longest a call may run, however often it is restarted', () => {
    const fired = jest.fn();
    const timer = new CallTimer({ timeoutMs: 1000, maxMs: 3500 }, fired);
    for (let elapsed = 0; elapsed < 3000; elapsed += 500) {
      jest.advanceTimersByTime(500);
      timer.restart();
    }
    jest.advanceTimersByTime(499);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(fired.mock.calls[0][0]).not.toBeInstanceOf(UpstreamTimeout);
    expect(fired.mock.calls[0][0]).toMatchObject({
      kind: 'timeout',
      message: 'still running after 3500 ms, the longest a call may run',
    });
  });

  it('does not run while a client answer is pending, and runs afresh once it settles', async () => {
    const fired = jest.fn();
    const timer = new CallTimer(LIMITS, fired);
    let answer!: () => void;
    const pending = new Promise<void>((resolve) => (answer = resolve));
    timer.pauseFor(pending);
    timer.restart();
    jest.advanceTimersByTime(60_000);
    expect(fired).not.toHaveBeenCalled();
    answer();
    await pending;
    await Promise.resolve();
    jest.advanceTimersByTime(999);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(fired.mock.calls[0][0]).toBeInstanceOf(UpstreamTimeout);
  });

  it("leaves the client's answers out of the longest a call may run", async () => {
    const fired = jest.fn();
    const timer = new CallTimer({ timeoutMs: 1000, maxMs: 2000 }, fired);
    jest.advanceTimersByTime(800);
    let answer!: () => void;
    const pending = new Promise<void>((resolve) => (answer = resolve));
    timer.pauseFor(pending);
    jest.advanceTimersByTime(10_000);
    answer();
    await pending;
    await Promise.resolve();
    jest.advanceTimersByTime(900);
    timer.restart();
    jest.advanceTimersByTime(299);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(fired.mock.calls[0][0]).toMatchObject({
      message: 'still running after 2000 ms, the longest a call may run',
    });
  });

  it('resumes after a rejected answer too, and never fires once stopped', async () => {
    const fired = jest.fn();
    const timer = new CallTimer(LIMITS, fired);
    const refused = Promise.reject(new Error('declined'));
    timer.pauseFor(refused);
    await refused.catch(() => undefined);
    await Promise.resolve();
    jest.advanceTimersByTime(1000);
    expect(fired).toHaveBeenCalledTimes(1);
    const stopped = jest.fn();
    new CallTimer(LIMITS, stopped).stop();
    jest.advanceTimersByTime(5000);
    expect(stopped).not.toHaveBeenCalled();
  });
});
