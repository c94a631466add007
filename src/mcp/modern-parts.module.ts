import { Logger, Module, type Provider } from '@nestjs/common';
import { EventBus } from '../events/event-bus';
import { Directories } from './calls/directories.service';
import { DEFAULT_LISTEN_LIMITS, ListenHub } from './listen/listen-hub';
import { McpModule } from './mcp.module';
import { RequestStateSealer } from './mrtr/request-state-seal';
import { REQUEST_STATE_SEALER } from './mrtr/request-state-sealer.provider';
import { ModernPromotions } from './search/modern-promotions';

export { REQUEST_STATE_SEALER };

/** The listens of this replica, told of list changes once the directories have dropped theirs. */
export const LISTEN_HUB: Provider = {
  provide: ListenHub,
  useFactory: (bus: EventBus, directories: Directories) => {
    const logger = new Logger(ListenHub.name);
    return new ListenHub(
      bus,
      (scope) => directories.get(scope),
      DEFAULT_LISTEN_LIMITS,
      (message) => logger.warn(message),
    );
  },
  inject: [EventBus, Directories],
};

/**
 * What the modern (2026-07-28) wire adds beside the core: sealed MRTR state, listens, and
 * promotions held by the principal in its scope. Kept apart until the core wires them in.
 */
@Module({
  imports: [McpModule],
  providers: [REQUEST_STATE_SEALER, LISTEN_HUB, ModernPromotions],
  exports: [RequestStateSealer, ListenHub, ModernPromotions],
})
export class ModernPartsModule {}
