import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type Logger } from '@nestjs/common';
import { type EventBus, type PorticoEvent } from '../../events/event-bus';

/** How a session reaches the other replicas. */
export interface SessionRelay {
  /** For the client, on a stream of the session that another replica may hold. */
  toClient(streamId: string, message: JSONRPCMessage, eventId?: string, final?: boolean): void;
  /** From the client, for the replica that is waiting for it. */
  fromClient(message: JSONRPCMessage): void;
}

/**
 * A session's relay over the bus. The runtime cannot wait for a publish, and a failed one (the
 * database or Redis is away) must cost that message only, never an unhandled rejection.
 */
export function busRelay(bus: EventBus, sessionId: string, logger: Logger): SessionRelay {
  const publish = (event: PorticoEvent) =>
    void bus
      .publish(event)
      .catch((error: unknown) =>
        logger.warn(`Could not relay a message of session ${sessionId}: ${String(error)}`),
      );
  return {
    toClient: (streamId, message, eventId, final) =>
      publish({
        type: 'mcp.to-client',
        sessionId,
        streamId,
        message,
        ...(eventId === undefined ? {} : { eventId }),
        ...(final ? { final } : {}),
      }),
    fromClient: (message) => publish({ type: 'mcp.from-client', sessionId, message }),
  };
}
