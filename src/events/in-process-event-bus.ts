import { Injectable, Logger } from '@nestjs/common';
import { EventBus, type EventHandler, type PorticoEvent } from './event-bus';

/** The bus for a single process. */
@Injectable()
export class InProcessEventBus extends EventBus {
  private readonly logger = new Logger(InProcessEventBus.name);
  private readonly handlers = new Set<EventHandler>();

  override async publish(event: PorticoEvent): Promise<void> {
    this.deliver(event);
  }

  override subscribe(handler: EventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Calls every handler; one failing handler never stops the others. */
  protected deliver(event: PorticoEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.logger.error(
          `Event handler failed for ${event.type}`,
          error instanceof Error ? error.stack : String(error),
        );
      }
    }
  }
}
