import { Logger } from '@nestjs/common';
import { type PorticoEvent } from './event-bus';
import { InProcessEventBus } from './in-process-event-bus';
import { type ReplicaId } from './replica-id';

/** What crosses replicas: the event and the replica that published it. */
export interface Envelope {
  origin: string;
  event: PorticoEvent;
}

/**
 * A bus across replicas. The publishing replica hears its own event at once, as the embedded bus
 * does, so that a caller who changed something reads the change next, not only after the channel
 * echoed it back; the other replicas hear it through the channel, and each drops its own echo.
 */
export abstract class ReplicatedEventBus extends InProcessEventBus {
  protected readonly log = new Logger(this.constructor.name);

  constructor(protected readonly replica: ReplicaId) {
    super();
  }

  override async publish(event: PorticoEvent): Promise<void> {
    this.deliver(event);
    await this.send(JSON.stringify({ origin: this.replica.value, event } satisfies Envelope));
  }

  /** Hands an envelope to the channel. */
  protected abstract send(envelope: string): Promise<void>;

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
    this.log.error(
      `Undeliverable event: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
