import { endAtExpiry } from './stream-expiry';

const DAY_MS = 24 * 3600 * 1000;

/** A stream as endAtExpiry sees it: open until the test closes it. */
class FakeStream {
  open = true;
  private readonly listeners: (() => void)[] = [];

  onClose(listener: () => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.open = false;
    for (const listener of this.listeners) listener();
  }
}

describe('endAtExpiry', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('ends the stream when its credential expires, and not before', () => {
    const end = jest.fn();
    endAtExpiry({ expiresAt: Date.now() + 5000 }, new FakeStream(), end);
    jest.advanceTimersByTime(4999);
    expect(end).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('waits for an expiry past what one timer can hold (90 days), in steps', () => {
    const end = jest.fn();
    endAtExpiry({ expiresAt: Date.now() + 90 * DAY_MS }, new FakeStream(), end);
    jest.advanceTimersByTime(90 * DAY_MS - 1);
    expect(end).not.toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(1);
    expect(end).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('ends at once a stream whose credential expired as it opened', () => {
    const end = jest.fn();
    endAtExpiry({ expiresAt: Date.now() - 1 }, new FakeStream(), end);
    expect(end).not.toHaveBeenCalled();
    jest.advanceTimersByTime(0);
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('arms nothing without a known expiry, or for a stream already closed', () => {
    const end = jest.fn();
    endAtExpiry({}, new FakeStream(), end);
    const closed = new FakeStream();
    closed.close();
    endAtExpiry({ expiresAt: Date.now() + 1000 }, closed, end);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(365 * DAY_MS);
    expect(end).not.toHaveBeenCalled();
  });

  it('forgets the expiry of a stream that closed first', () => {
    const end = jest.fn();
    const stream = new FakeStream();
    endAtExpiry({ expiresAt: Date.now() + 60 * DAY_MS }, stream, end);
    jest.advanceTimersByTime(30 * DAY_MS);
    stream.close();
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(60 * DAY_MS);
    expect(end).not.toHaveBeenCalled();
  });
});
