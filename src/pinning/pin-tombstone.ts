import { type JsonObject } from '../common/json-value';
import { type PinState } from '../pin-state/definition-pin';

/**
 * Tombstones kept per gateway, across tools, prompts and resource templates: as many as the
 * largest catalogue a sync is sized for. Past it the longest gone are dropped, and their keys go
 * into the gateway's forgotten keys (forgotten-keys.ts), so that their return is still held.
 */
export const TOMBSTONES_PER_GATEWAY = 5000;

/** A leaving definition larger than this (as JSON) is remembered by its hashes only. */
export const TOMBSTONE_DEFINITION_BYTES = 64 * 1024;

/**
 * What Portico remembers of an entry that left its upstream while a decision was on it (pinned,
 * rejected, or disabled), so that the entry's return is judged against that decision rather than
 * as a stranger's: the same definition is served as before, another is held for review.
 */
export interface Tombstone {
  /** The upstream name, or URI template. */
  key: string;
  pinnedHash: string | null;
  rejectedHash: string | null;
  enabled: boolean;
  /**
   * The hash of the definition stored when it left, and that definition: null when it was too
   * large to keep, and when only its look (below) was read.
   */
  contentHash: string;
  definition: JsonObject | null;
  /** How it looks to a rename (rename-view.ts): interface, description, and body but the name. */
  shape: string;
  text: string;
  body: string;
}

/** Whether an entry leaving the upstream carries a decision worth a tombstone. */
export function leavesTombstone(entry: Omit<PinState, 'quarantine'> & { enabled: boolean }) {
  return entry.pinnedHash !== null || entry.rejectedHash !== null || !entry.enabled;
}

/** The definition a tombstone keeps: null when it is too large to keep. */
export function keptDefinition(definition: JsonObject): JsonObject | null {
  return Buffer.byteLength(JSON.stringify(definition)) > TOMBSTONE_DEFINITION_BYTES
    ? null
    : definition;
}

export interface TombstoneDigest {
  kind: string;
  key: string;
  removedAt: Date;
}

/** The tombstones to drop so that at most `limit` stay: the longest gone first. */
export function tombstonesToEvict(
  kept: readonly TombstoneDigest[],
  limit: number,
): TombstoneDigest[] {
  if (kept.length <= limit) return [];
  return [...kept]
    .sort(
      (a, b) =>
        a.removedAt.getTime() - b.removedAt.getTime() ||
        compare(a.kind, b.kind) ||
        compare(a.key, b.key),
    )
    .slice(0, kept.length - limit);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
