/**
 * What replicas tell each other. In embedded mode there is one process and the bus is in-process;
 * with PostgreSQL it crosses processes (LISTEN/NOTIFY, or Redis pub/sub when REDIS_URL is set).
 */
export type PorticoEvent =
  /** Tools of these gateways, or gateways themselves, changed: caches drop, clients hear list_changed. */
  | { type: 'catalog.changed'; gatewayIds: string[] }
  /** Virtual servers changed (membership, settings, deletion). */
  | { type: 'servers.changed'; serverIds: string[] };

export type EventHandler = (event: PorticoEvent) => void;

export abstract class EventBus {
  /** Delivers to every subscriber in every replica, this one included. */
  abstract publish(event: PorticoEvent): Promise<void>;
  abstract subscribe(handler: EventHandler): () => void;
}
