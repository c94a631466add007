import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { CallAbort } from './call-abort';

describe('CallAbort', () => {
  it('aborts once, with its reason, telling each listener and onabort', () => {
    const abort = new CallAbort();
    const heard: unknown[] = [];
    abort.signal.addEventListener('abort', () => heard.push(abort.signal.reason), { once: true });
    abort.signal.onabort = () => heard.push('onabort');
    expect(abort.signal.aborted).toBe(false);
    expect(() => abort.signal.throwIfAborted()).not.toThrow();

    abort.abort('first');
    abort.abort('second');

    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe('first');
    expect(heard).toEqual(['onabort', 'first']);
    expect(() => abort.signal.throwIfAborted()).toThrow();
  });

  it('gives an AbortError when no reason is given, as AbortController does', () => {
    const abort = new CallAbort();
    abort.abort();
    expect(abort.signal.reason).toBeInstanceOf(DOMException);
    expect((abort.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('does not tell a listener that was removed', () => {
    const abort = new CallAbort();
    const listener = jest.fn();
    abort.signal.addEventListener('abort', listener);
    abort.signal.removeEventListener('abort', listener);
    abort.abort();
    expect(listener).not.toHaveBeenCalled();
  });

  it('cancels a timers/promises wait with its reason', async () => {
    const abort = new CallAbort();
    const waiting = delay(10_000, undefined, { signal: abort.signal });
    abort.abort(new Error('gone'));
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError', cause: new Error('gone') });
  });

  describe('with undici', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      // Answers nothing: a request to it waits until it is aborted.
      server = createServer(() => undefined).listen(0, '127.0.0.1');
      await once(server, 'listening');
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it('cancels a request under way with its reason', async () => {
      const abort = new CallAbort();
      const pending = request(url, { signal: abort.signal });
      setTimeout(() => abort.abort(new Error('the caller gave up')), 50);
      await expect(pending).rejects.toThrow('the caller gave up');
    });
  });
});
