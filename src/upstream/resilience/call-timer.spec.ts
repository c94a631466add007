import { CallTimer } from './call-timer';

describe('CallTimer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fires after the timeout, counted from the last restart', () => {
    const fired = jest.fn();
    const timer = new CallTimer(1000, fired);
    jest.advanceTimersByTime(900);
    timer.restart();
    jest.advanceTimersByTime(900);
    expect(fired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(100);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('does not run while a client answer is pending, and runs afresh once it settles', async () => {
    const fired = jest.fn();
    const timer = new CallTimer(1000, fired);
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
  });

  it('resumes after a rejected answer too, and never fires once stopped', async () => {
    const fired = jest.fn();
    const timer = new CallTimer(1000, fired);
    const refused = Promise.reject(new Error('declined'));
    timer.pauseFor(refused);
    await refused.catch(() => undefined);
    await Promise.resolve();
    jest.advanceTimersByTime(1000);
    expect(fired).toHaveBeenCalledTimes(1);
    const stopped = jest.fn();
    new CallTimer(1000, stopped).stop();
    jest.advanceTimersByTime(5000);
    expect(stopped).not.toHaveBeenCalled();
  });
});
