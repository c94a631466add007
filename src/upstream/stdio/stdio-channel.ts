import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Channel,
  type ChannelListener,
  type ChannelRequestOptions,
  isJsonRpcResponse,
} from '../channel';
import { UpstreamFailure } from '../upstream-error';
import { type StdioLaunch, type StdioProcess } from './stdio-process';
import { type StdioSupervisor } from './stdio-supervisor.service';

interface Pending {
  resolve(response: JSONRPCResponse): void;
  reject(reason: unknown): void;
}

const SHOWN_GARBAGE = 120;

/**
 * An upstream session over a stdio process of its own, taken from the supervisor when the channel
 * starts and ended when it closes. A process that exits, or writes anything but JSON-RPC to
 * stdout, fails what is in flight at once with a clear reason: nothing waits for its timeout.
 */
export class StdioChannel implements Channel {
  private readonly pending = new Map<RequestId, Pending>();
  private child: StdioProcess | null = null;
  private listener: ChannelListener | null = null;
  private failure: UpstreamFailure | null = null;
  private closed = false;

  constructor(
    private readonly supervisor: StdioSupervisor,
    private readonly gatewayId: string,
    private readonly launch: StdioLaunch,
  ) {}

  start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
    const child = this.supervisor.acquire(this.gatewayId, this.launch);
    this.child = child;
    child.attach({
      message: (message) => {
        if (!isJsonRpcResponse(message)) {
          listener.message(message);
          return;
        }
        if (message.id === undefined) return;
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        pending?.resolve(message);
      },
      garbage: (line) => {
        const shown = line.length > SHOWN_GARBAGE ? `${line.slice(0, SHOWN_GARBAGE)}…` : line;
        this.lose(
          new UpstreamFailure(
            'protocol',
            `the stdio process wrote a line to stdout that is not JSON-RPC (${JSON.stringify(shown)}); stdout carries MCP messages only, logs belong on stderr`,
          ),
        );
        void this.supervisor.release(this.gatewayId, child);
      },
      exit: (description) =>
        this.lose(new UpstreamFailure('unreachable', `the stdio process ended: ${description}`)),
    });
    return Promise.resolve();
  }

  established(): void {
    if (this.child) this.supervisor.ready(this.gatewayId, this.child);
  }

  /** The pipe carries everything already. */
  listen(): Promise<void> {
    return Promise.resolve();
  }

  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    const child = this.child;
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed || !child)
      return Promise.reject(new UpstreamFailure('unreachable', 'the stdio session is closed'));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(message.id);
        reject(options.signal.reason as Error);
      };
      if (options.signal.aborted) {
        onAbort();
        return;
      }
      options.signal.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          options.signal.removeEventListener('abort', onAbort);
          done(value);
        };
      this.pending.set(message.id, { resolve: settle(resolve), reject: settle(reject) });
      child.send(message).catch(() => undefined);
    });
  }

  async send(message: JSONRPCNotification | JSONRPCResponse): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.child) throw new UpstreamFailure('unreachable', 'the stdio session is closed');
    await this.child.send(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (child) await this.supervisor.release(this.gatewayId, child);
  }

  private lose(reason: UpstreamFailure): void {
    if (this.failure) return;
    this.failure = reason;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(reason);
    if (!this.closed) this.listener?.lost(reason);
  }
}
