import { type PorticoEvent, UPSTREAM_LISTS, type UpstreamList } from '../../events/event-bus';

/** What a scope's lists are now: its directory, or null when its server is gone or disabled. */
export interface ListVersions {
  version(kind: UpstreamList): string;
  /** Whether the list holds anything of the gateway's. */
  holds(kind: UpstreamList, gatewayId: string): boolean;
}

/** An upstream's word that lists of its gateway changed. */
export type Announced = Omit<Extract<PorticoEvent, { type: 'lists.announced' }>, 'type'>;

/**
 * The lists whose version moved since a client last saw them, or that an upstream whose members
 * they hold said changed (`announced`), recording the new versions in `seen`: what decides a
 * `list_changed`, for 2025 sessions and modern listens alike. A scope that is gone has moved every
 * list (to the empty version), once.
 */
export function movedLists(
  seen: Map<UpstreamList, string>,
  current: ListVersions | null,
  announced: readonly Announced[] = [],
): UpstreamList[] {
  const moved: UpstreamList[] = [];
  for (const kind of UPSTREAM_LISTS) {
    const version = current?.version(kind) ?? '';
    const said = announced.some(
      ({ gatewayId, lists }) => lists.includes(kind) && current?.holds(kind, gatewayId),
    );
    if (seen.get(kind) === version && !said) continue;
    seen.set(kind, version);
    moved.push(kind);
  }
  return moved;
}

/** The versions a client starts from: those of the lists it could read now. */
export function seenNow(current: ListVersions): Map<UpstreamList, string> {
  return new Map(UPSTREAM_LISTS.map((kind) => [kind, current.version(kind)]));
}
