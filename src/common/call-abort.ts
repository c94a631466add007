/**
 * The AbortController of one call on the hot path (a client's request, an upstream exchange).
 *
 * Node 20's own AbortController is costly there: each of its signals gets a hidden class of its
 * own (the signal is built as an EventTarget and its prototype set afterwards), and none dies
 * young: every signal, and whatever its listeners hold (a request, its response), is promoted and
 * waits for a full collection. Two per MCP call cost about 5 % of Portico's CPU per call.
 *
 * This signal is a plain EventTarget with AbortSignal's instance interface. Code of Portico's own,
 * undici's `request` and `timers/promises` take it. `fetch` and `AbortSignal.any` need Node's own
 * signal: give them none of these.
 */
class CallSignal extends EventTarget implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AbortSignal, event: Event) => unknown) | null = null;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}

export class CallAbort {
  private readonly own = new CallSignal();
  readonly signal: AbortSignal = this.own;

  /** Aborts once, with `reason` (an AbortError by default), as AbortController.abort does. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    const signal = this.own;
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason;
    const event = new Event('abort');
    signal.onabort?.call(signal, event);
    signal.dispatchEvent(event);
  }
}
