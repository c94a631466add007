import { LISTS, type ListKind } from '../directory/scope-directory';

/** What a scope's lists are now: its directory, or null when its server is gone or disabled. */
export interface ListVersions {
  version(kind: ListKind): string;
}

/**
 * The lists whose version moved since a client last saw them, recording the new versions in
 * `seen`: what decides a `list_changed`, for 2025 sessions and modern listens alike. A scope that
 * is gone has moved every list (to the empty version), once.
 */
export function movedLists(seen: Map<ListKind, string>, current: ListVersions | null): ListKind[] {
  const moved: ListKind[] = [];
  for (const kind of LISTS) {
    const version = current?.version(kind) ?? '';
    if (seen.get(kind) === version) continue;
    seen.set(kind, version);
    moved.push(kind);
  }
  return moved;
}

/** The versions a client starts from: those of the lists it could read now. */
export function seenNow(current: ListVersions): Map<ListKind, string> {
  return new Map(LISTS.map((kind) => [kind, current.version(kind)]));
}
