import { Logger, type Provider } from '@nestjs/common';
import { EventBus } from '../../events/event-bus';
import { Metrics } from '../../observability/metrics';
import { Directories } from '../directory/directories.service';
import { DEFAULT_LISTEN_LIMITS, ListenHub } from './listen-hub';

/** The listens of this replica, told of list changes once the directories have dropped theirs. */
export const LISTEN_HUB: Provider = {
  provide: ListenHub,
  useFactory: (bus: EventBus, directories: Directories, metrics: Metrics) => {
    const logger = new Logger(ListenHub.name);
    return new ListenHub(bus, (scope) => directories.get(scope), DEFAULT_LISTEN_LIMITS, {
      warn: (message) => logger.warn(message),
      listens: (open) => metrics.listens.set(open),
    });
  },
  inject: [EventBus, Directories, Metrics],
};
