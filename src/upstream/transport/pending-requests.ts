import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';

interface Pending {
  resolve(response: JSONRPCResponse): void;
  reject(reason: unknown): void;
  onMessage(message: JSONRPCRequest | JSONRPCNotification): void;
}

/**
 * The requests a pipe channel (legacy SSE, stdio) has sent and not yet seen answered, matched to
 * their responses by id; each leaves when it is answered, aborted or failed with the pipe.
 */
export class PendingRequests {
  private readonly pending = new Map<RequestId, Pending>();

  get size(): number {
    return this.pending.size;
  }

  /**
   * Sends a request and resolves with its response; `signal` aborts it with its reason. What the
   * upstream sends while it is the only request waiting is its (`onMessage`), see `tie`.
   */
  add(
    id: RequestId,
    signal: AbortSignal,
    onMessage: Pending['onMessage'],
    send: () => Promise<void>,
  ): Promise<JSONRPCResponse> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        reject(signal.reason as Error);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          signal.removeEventListener('abort', onAbort);
          done(value);
        };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject), onMessage });
      send().catch((error: unknown) => {
        this.pending.delete(id);
        settle(reject)(error);
      });
    });
  }

  /** Hands a response to the request it answers; an answer to nothing pending is dropped. */
  answer(response: JSONRPCResponse): void {
    if (response.id === undefined) return;
    const pending = this.pending.get(response.id);
    this.pending.delete(response.id);
    pending?.resolve(response);
  }

  /**
   * A pipe has no stream per request: a message of the upstream's (its own request, a log) is
   * about the request waiting when exactly one is, and about none it can tell otherwise (false).
   */
  tie(message: JSONRPCRequest | JSONRPCNotification): boolean {
    if (this.pending.size !== 1) return false;
    this.pending.values().next().value!.onMessage(message);
    return true;
  }

  /** Fails every request still waiting. */
  failAll(reason: unknown): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(reason);
  }
}
