import { type Affinity, type UpstreamConnection } from './upstream-connection';
import { type UpstreamTarget } from './upstream-target';

/** One connection of the upstream client's pool, keyed by gateway, authorization context and affinity. */
export interface Link {
  key: string;
  target: UpstreamTarget;
  affinity: Affinity;
  connection: Promise<UpstreamConnection>;
  lastUsed: number;
  inFlight: number;
}

/** A shared connection unused this long (and idle) is closed. */
const IDLE_CLOSE_MS = 5 * 60_000;
/** How often the pool looks for idle shared connections. */
export const SWEEP_EVERY_MS = 60_000;
/** Shared connections of one gateway and authorization context, one per client declaration. */
const DECLARATIONS_PER_CONTEXT = 16;

/**
 * Declarations are the client's to vary: past DECLARATIONS_PER_CONTEXT shared links of one
 * gateway and authorization context (the `prefix` of their keys), the least recently used idle
 * one, to close before another opens.
 */
export function crowdedOut(links: Iterable<Link>, prefix: string): Link | undefined {
  const same = [...links].filter((link) => link.affinity.shared && link.key.startsWith(prefix));
  if (same.length < DECLARATIONS_PER_CONTEXT) return undefined;
  return same.filter((link) => link.inFlight === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
}

/** The shared links no call has used for IDLE_CLOSE_MS by `now`. */
export function idleLinks(links: Iterable<Link>, now: number): Link[] {
  return [...links].filter(
    (link) => link.affinity.shared && link.inFlight === 0 && now - link.lastUsed > IDLE_CLOSE_MS,
  );
}
