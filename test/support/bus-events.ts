import { type EventBus, isResync, type PorticoEvent } from '../../src/events/event-bus';

/** The gateway ids of the catalog changes a bus hears from now on; `*` for a resync. */
export function heard(bus: Pick<EventBus, 'subscribe'>): string[] {
  const ids: string[] = [];
  bus.subscribe((event: PorticoEvent) => {
    if (isResync(event)) ids.push('*');
    else if (event.type === 'catalog.changed') ids.push(...event.gatewayIds);
  });
  return ids;
}

/** A catalog change of one gateway id, as the buses carry it. */
export const catalogChange = (id: string): PorticoEvent => ({
  type: 'catalog.changed',
  gatewayIds: [id],
});

/** How long `work` took to settle, in milliseconds. */
export async function timed(work: Promise<unknown>): Promise<number> {
  const start = Date.now();
  await work;
  return Date.now() - start;
}
