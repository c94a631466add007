import { type JSONRPCResponse, type RequestId, type Result } from '@modelcontextprotocol/server';
import { RpcError } from '../protocol/mcp-errors';

/**
 * How long a request to the client (sampling, elicitation, roots) may wait for its answer: a person
 * may be answering it, so far longer than an upstream is given.
 */
export const CLIENT_ANSWER_TIMEOUT_MS = 10 * 60_000;

interface Pending {
  resolve(result: Result): void;
  reject(reason: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * Requests this replica sends to a session's client, forwarded from upstreams. Their ids are
 * `<replica>.<n>`, so that whichever replica the client's answer reaches can tell whose it is.
 */
export class ClientRequests {
  private readonly pending = new Map<string, Pending>();
  private sequence = 0;

  constructor(private readonly replicaId: string) {}

  /** A new request's wire id, and the promise of the client's answer. */
  open(signal?: AbortSignal): { id: string; answer: Promise<Result> } {
    const id = `${this.replicaId}.${++this.sequence}`;
    const answer = new Promise<Result>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.settle(id, () => reject(new RpcError(-32001, 'The client did not answer in time'))),
        CLIENT_ANSWER_TIMEOUT_MS,
      );
      this.pending.set(id, { resolve, reject, timer });
      signal?.addEventListener(
        'abort',
        () => this.settle(id, (pending) => pending.reject(signal.reason)),
        { once: true },
      );
    });
    return { id, answer };
  }

  /** Whether a response's id is one this replica issued. */
  isOurs(id: RequestId): boolean {
    return typeof id === 'string' && id.startsWith(`${this.replicaId}.`);
  }

  /** The client's answer; false when no request of this replica is waiting for it. */
  answer(response: JSONRPCResponse): boolean {
    const id = String(response.id);
    return this.settle(id, (pending) => {
      if ('error' in response)
        pending.reject(
          new RpcError(response.error.code, response.error.message, response.error.data),
        );
      else pending.resolve(response.result);
    });
  }

  /** Fails every request still waiting: the session is closing here. */
  close(): void {
    for (const id of [...this.pending.keys()])
      this.settle(id, (pending) => pending.reject(new RpcError(-32000, 'Session closed')));
  }

  private settle(id: string, outcome: (pending: Pending) => void): boolean {
    const pending = this.pending.get(id);
    if (!pending) return false;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    outcome(pending);
    return true;
  }
}
