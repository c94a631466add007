import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/client';
import { type Channel, type ChannelListener, type ChannelRequestOptions } from '../channel';
import { PendingRequests } from '../pending-requests';
import { UpstreamFailure } from '../../upstream-error';
import { type StdioLaunch, type StdioProcess } from './stdio-process';
import { type StdioSupervisor } from './stdio-supervisor.service';

const SHOWN_GARBAGE = 120;

/**
 * An upstream session over a stdio process of its own, taken from the supervisor when the channel
 * starts and ended when it closes. A process that exits, or writes anything but JSON-RPC to
 * stdout, fails what is in flight at once with a clear reason: nothing waits for its timeout.
 */
export class StdioChannel implements Channel {
  private readonly pending = new PendingRequests();
  private child: StdioProcess | null = null;
  private listener: ChannelListener | null = null;
  private failure: UpstreamFailure | null = null;
  private closed = false;

  constructor(
    private readonly supervisor: StdioSupervisor,
    private readonly gatewayId: string,
    private readonly launch: StdioLaunch,
    /** The era probe's throw-away process (see StdioSupervisor.probe), ended with the channel. */
    private readonly probe = false,
  ) {}

  start(listener: ChannelListener): Promise<void> {
    this.listener = listener;
    const child = this.probe
      ? this.supervisor.probe(this.launch)
      : this.supervisor.acquire(this.gatewayId, this.launch);
    this.child = child;
    child.attach({
      message: (message) => {
        this.pending.route(message, (untied) => listener.message(untied));
      },
      garbage: (line, reason) => {
        const shown = line.length > SHOWN_GARBAGE ? `${line.slice(0, SHOWN_GARBAGE)}…` : line;
        this.lose(
          new UpstreamFailure(
            'protocol',
            reason ??
              `the stdio process wrote a line to stdout that is not JSON-RPC (${JSON.stringify(shown)}); stdout carries MCP messages only, logs belong on stderr`,
          ),
        );
        void this.end(child);
      },
      exit: (description) =>
        this.lose(new UpstreamFailure('unreachable', `the stdio process ended: ${description}`)),
    });
    return Promise.resolve();
  }

  established(): void {
    if (this.child && !this.probe) this.supervisor.ready(this.gatewayId, this.child);
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
    // A write that fails means the process is gone, which its exit reports to everything pending.
    return this.pending.add(message.id, options, () => child.send(message).catch(() => undefined));
  }

  async send(message: JSONRPCNotification | JSONRPCResponse): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.child) throw new UpstreamFailure('unreachable', 'the stdio session is closed');
    await this.child.send(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (child) await this.end(child);
  }

  private end(child: StdioProcess): Promise<void> {
    return this.probe ? child.kill() : this.supervisor.release(this.gatewayId, child);
  }

  private lose(reason: UpstreamFailure): void {
    if (this.failure) return;
    this.failure = reason;
    this.pending.failAll(reason);
    if (!this.closed) this.listener?.lost(reason);
  }
}
