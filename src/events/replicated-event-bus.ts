import { Logger } from '@nestjs/common';
import { type EventBusConfig } from '../config/slices/events.settings';
import { type PorticoEvent, RESYNC } from './event-bus';
import { InProcessEventBus } from './in-process-event-bus';
import { OutboundQueue } from './outbound-queue';
import { type ReplicaId } from './replica-id';
import { errorMessage } from '../common/error-message';

/** What crosses replicas: the event and the replica that published it. */
export interface Envelope {
  origin: string;
  event: PorticoEvent;
}

/** How the channel stands, for /metrics. */
export interface EventBusState {
  /** Whether this replica hears the channel. */
  listening: boolean;
  queued: number;
  queuedBytes: number;
  /** Events dropped since start because the queue was full. */
  dropped: number;
  /** Times every cache was dropped since start because events may have been missed. */
  resyncs: number;
}

/**
 * A bus across replicas. The publishing replica hears its own event at once, as the embedded bus
 * does, so that a caller who changed something reads the change next, not only after the channel
 * echoed it back; the other replicas hear it through the channel, and each drops its own echo.
 *
 * The channel may go away. A publish then never fails and never holds its request for more than
 * `publishTimeoutMs`: what was stored stays stored, and the event waits in a bounded queue until
 * the channel takes it. A replica that stops hearing the channel drops every cache when it hears
 * it again (RESYNC), and meanwhile every `resyncWhileDownMs` if `mayResync` says so, so that what
 * it serves is never older than that.
 */
export abstract class ReplicatedEventBus extends InProcessEventBus {
  protected readonly log = new Logger(this.constructor.name);
  private readonly outbound: OutboundQueue;
  /** Whether the channel is heard; `starting` until it first is or is found away. */
  private hearing: 'starting' | 'yes' | 'no' = 'starting';
  private resyncs = 0;
  private stopped = false;
  private deafTimer?: NodeJS.Timeout;

  constructor(
    protected readonly replica: ReplicaId,
    protected readonly settings: EventBusConfig,
  ) {
    super();
    this.outbound = new OutboundQueue({
      send: (payload) => this.send(payload),
      maxBytes: settings.queueMaxBytes,
      resyncPayload: () => this.envelope(RESYNC),
      onFailing: (error) =>
        this.log.warn(
          `Events cannot be published (${errorMessage(error)}); they wait, up to ${settings.queueMaxBytes} bytes, until the channel is back`,
        ),
      onRecovered: (queued) =>
        this.log.log(`Events are published again; ${queued} more still wait their turn`),
      onDropped: () =>
        this.log.error(
          'The event queue is full: events are dropped, and other replicas will drop their caches once the channel is back',
        ),
    });
  }

  override async publish(event: PorticoEvent): Promise<void> {
    this.deliver(event);
    await this.outbound.push(this.envelope(event), this.settings.publishTimeoutMs);
  }

  state(): EventBusState {
    return {
      listening: this.hearing === 'yes',
      queued: this.outbound.length,
      queuedBytes: this.outbound.queuedBytes,
      dropped: this.outbound.dropped,
      resyncs: this.resyncs,
    };
  }

  /** Hands an envelope to the channel; settles within the channel's own timeout. */
  protected abstract send(envelope: string): Promise<void>;

  /**
   * Whether dropping every cache now would do good: it would not while the database is away too,
   * when what the caches hold is all this replica has.
   */
  protected mayResync(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * The channel is heard (again): whatever it carried while this replica was not listening is
   * lost, so every cache starts over, and what waits to be published is tried at once.
   */
  protected heard(): void {
    if (this.hearing === 'yes' || this.stopped) return;
    if (this.hearing === 'no') this.resyncs += 1;
    this.hearing = 'yes';
    clearInterval(this.deafTimer);
    this.deliver(RESYNC);
    this.outbound.kick();
  }

  /** The channel is not heard (its connection closed or stopped answering, or never opened). */
  protected deaf(reason: string): void {
    if (this.hearing === 'no' || this.stopped) return;
    this.hearing = 'no';
    const every = this.settings.resyncWhileDownMs;
    this.log.warn(
      `Not hearing other replicas (${reason}); caches drop what they hold once the channel is back` +
        (every > 0 ? ` and every ${every / 1000} s meanwhile` : ''),
    );
    if (every > 0) {
      this.deafTimer = setInterval(() => void this.resyncWhileDeaf(), every);
      this.deafTimer.unref();
    }
  }

  /** The bus is done: nothing more is sent, dropped or resynced. */
  protected stop(): void {
    this.stopped = true;
    clearInterval(this.deafTimer);
    this.outbound.close();
  }

  /** Tries the queue now: the channel says it can take a publish again. */
  protected retryPublishing(): void {
    this.outbound.kick();
  }

  /** Delivers what another replica published; a bare event is from a replica of an earlier release. */
  protected receive(envelope: Envelope | PorticoEvent): void {
    if (!('origin' in envelope)) this.deliver(envelope);
    else if (envelope.origin !== this.replica.value) this.deliver(envelope.event);
  }

  /** Whether a payload comes back from this replica, so it need not be read further. */
  protected isOwn(payload: { origin?: unknown }): boolean {
    return payload.origin === this.replica.value;
  }

  protected undeliverable(error: unknown): void {
    this.log.error(`Undeliverable event: ${errorMessage(error)}`);
  }

  private async resyncWhileDeaf(): Promise<void> {
    try {
      if (this.hearing !== 'no' || !(await this.mayResync())) return;
      this.resyncs += 1;
      this.deliver(RESYNC);
    } catch (error) {
      this.log.warn(`Could not check whether to drop caches: ${errorMessage(error)}`);
    }
  }

  private envelope(event: PorticoEvent): string {
    return JSON.stringify({ origin: this.replica.value, event } satisfies Envelope);
  }
}
