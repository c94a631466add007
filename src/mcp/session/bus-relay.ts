import { type Logger } from '@nestjs/common';
import { type EventBus } from '../../events/event-bus';
import { type SessionRelay } from '../http/session-transport';

/**
 * A session's relay over the bus. The transport cannot wait for a publish, and a failed one (the
 * database or Redis is away) must cost that message only, never an unhandled rejection.
 */
export function busRelay(bus: EventBus, sessionId: string, logger: Logger): SessionRelay {
  const publish = (
    type: 'mcp.to-client' | 'mcp.from-client',
    message: Parameters<SessionRelay['toClient']>[0],
  ) =>
    bus
      .publish({ type, sessionId, message })
      .catch((error: unknown) =>
        logger.warn(`Could not relay a message of session ${sessionId}: ${String(error)}`),
      );
  return {
    toClient: (message) => void publish('mcp.to-client', message),
    fromClient: (message) => void publish('mcp.from-client', message),
  };
}
