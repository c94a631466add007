import { type JSONRPCResponse, type RequestId } from '@modelcontextprotocol/client';

interface Pending {
  resolve(response: JSONRPCResponse): void;
  reject(reason: unknown): void;
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

  /** Sends a request and resolves with its response; `signal` aborts it with its reason. */
  add(id: RequestId, signal: AbortSignal, send: () => Promise<void>): Promise<JSONRPCResponse> {
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
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
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

  /** Fails every request still waiting. */
  failAll(reason: unknown): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(reason);
  }
}
