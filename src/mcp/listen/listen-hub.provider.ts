import { Logger, type Provider } from '@nestjs/common';
import { EventBus } from '../../events/event-bus';
import { Directories } from '../directory/directories.service';
import { DEFAULT_LISTEN_LIMITS, ListenHub } from './listen-hub';

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
