import { setTimeout as delay } from 'node:timers/promises';
import { HttpChannel, retryDelay } from './http-channel';
import { isJsonRpcResponse } from './message-bounds';
import { readEventStream, type StreamPosition } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';
import { doublingWait } from '../resilience/upstream-retry';

const CLOSE_TIMEOUT_MS = 1000;
/** Failed attempts in a row to reopen a session's stream before the upstream counts as gone. */
const MAX_STREAM_FAILURES = 2;
/** First wait before reopening a session's stream that failed; doubled after each failure. */
const STREAM_RETRY_MS = 500;
/** Longest wait for an upstream to take the session's stream before calls go ahead anyway. */
const STREAM_OPEN_WAIT_MS = 2000;
/** Shortest wait before reopening the session's stream, whatever `retry` the upstream asked for. */
const MIN_REOPEN_MS = 100;
/** Longest wait before reopening a stream that keeps ending with nothing in it. */
const MAX_QUIET_WAIT_MS = 30_000;

/**
 * A 2025 Streamable HTTP session: its requests are HttpChannel's (with the session's id from its
 * initialize); what it adds is its own GET stream, for what the upstream sends outside requests,
 * and its end upstream (DELETE) when it closes.
 */
export class HttpSessionChannel extends HttpChannel {
  private readonly closing = new AbortController();

  /**
   * Opens the session's own stream, and waits until the upstream has taken it (or refused it):
   * a request the upstream makes of the client outside any call's stream, as soon as the first
   * call starts, goes nowhere when this stream is not yet there.
   */
  override listen(): Promise<void> {
    if (this.sessionId === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, STREAM_OPEN_WAIT_MS);
      void this.keepStream(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  override async close(): Promise<void> {
    this.closing.abort();
    if (this.sessionId === undefined) return;
    // Ends the session upstream; an upstream that cannot be reached now has nothing to end.
    const response = await this.dispatch('DELETE', null, {
      signal: AbortSignal.timeout(CLOSE_TIMEOUT_MS),
    }).catch(() => null);
    await response?.body.dump().catch(() => undefined);
  }

  /**
   * The session's own GET stream, for messages outside requests: kept open until the channel
   * closes. A stream the upstream ends is resumed from its last event id after the `retry` it
   * asked for (at least MIN_REOPEN_MS); streams that end in a row with no message in them wait
   * twice as long each time (from STREAM_RETRY_MS up to MAX_QUIET_WAIT_MS), so an upstream that
   * ends every stream at once, asking for `retry: 0`, is not asked again in a loop. One that
   * cannot be reopened a few times in a row means the upstream is gone. An upstream that offers
   * none (405) has nothing to say outside requests.
   */
  private async keepStream(opened: () => void): Promise<void> {
    const signal = this.closing.signal;
    let position: StreamPosition = {};
    let failures = 0;
    let quiet = 0;
    while (!signal.aborted) {
      let wait: number;
      try {
        const response = await this.dispatch('GET', null, {
          signal,
          lastEventId: position.lastEventId,
        }).finally(opened);
        if (response.statusCode === 405) {
          await response.body.dump();
          return;
        }
        await this.refusal(response);
        failures = 0;
        let heard = false;
        position = await readEventStream(
          response.body,
          (message) => {
            heard = true;
            if (!isJsonRpcResponse(message)) this.listener?.message(message);
            return false;
          },
          this.options.limits,
          position,
        );
        quiet = heard ? 0 : quiet + 1;
        const least = doublingWait(quiet, STREAM_RETRY_MS, MAX_QUIET_WAIT_MS);
        wait = Math.max(retryDelay(position), least, MIN_REOPEN_MS);
      } catch (error) {
        if (signal.aborted) return;
        const expired = error instanceof UpstreamFailure && error.kind === 'session-expired';
        if (expired || ++failures > MAX_STREAM_FAILURES) {
          this.listener?.lost(
            error instanceof UpstreamFailure
              ? error
              : new UpstreamFailure(
                  'unreachable',
                  `the upstream's event stream broke: ${String(error)}`,
                ),
          );
          return;
        }
        wait = doublingWait(failures, STREAM_RETRY_MS, MAX_QUIET_WAIT_MS);
      }
      await delay(wait, undefined, { signal }).catch(() => undefined);
    }
  }
}
