import {
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/client';
import { type ChannelListener, type ChannelRequestOptions } from './channel';
import { isJsonRpcResponse } from './message-bounds';

interface Pending {
  resolve(response: JSONRPCResponse): void;
  reject(reason: unknown): void;
  options: ChannelRequestOptions;
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
   * Sends a request and resolves with its response; its `signal` aborts it with its reason. What
   * the upstream sends while it is the only request waiting is its (`onMessage`), see `route`.
   */
  add(
    id: RequestId,
    options: ChannelRequestOptions,
    send: () => Promise<void>,
  ): Promise<JSONRPCResponse> {
    const { signal } = options;
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
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject), options });
      send().catch((error: unknown) => {
        this.pending.delete(id);
        settle(reject)(error);
      });
    });
  }

  /**
   * Hands a message to what it is about: a response to the request it answers (an answer to
   * nothing pending is dropped). A pipe has no stream per request: any other message (the
   * upstream's own request, a log) is about the request waiting when exactly one is, and goes to
   * `untied` when there is no telling.
   */
  route(message: JSONRPCMessage, untied: ChannelListener['message']): void {
    if (!isJsonRpcResponse(message)) {
      if (this.pending.size === 1) this.pending.values().next().value!.options.onMessage(message);
      else untied(message);
      return;
    }
    if (message.id === undefined) return;
    const pending = this.pending.get(message.id);
    this.pending.delete(message.id);
    pending?.resolve(message);
  }

  /** Fails every request still waiting. */
  failAll(reason: unknown): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(reason);
  }
}
