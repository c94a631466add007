import { type ListDiff, type ReportedFinding } from '../sync-report/sync-report';
import { type JsonObject } from '../common/json-value';
import { Pacer } from '../common/pacer';
import {
  type PinSettings,
  type PinState,
  type Quarantine,
  STICKY_REASONS,
} from '../pin-state/definition-pin';
import { added, type Arrival, heldNew, type Outcome, RenameSearch, returned } from './pin-arrivals';
import { type PinWrite, type StoredFinding } from '../pin-state/pin-columns';
import { keptDefinition, type Tombstone } from './pin-tombstone';
import { type RenameView } from './rename-view';

/** A stored entry as the plan reads it: its upstream key, id and pin. */
export interface PinnedDigest extends PinState {
  id: string;
  key: string;
}

/** What a sync's pins did to one list, for its report. */
export interface PinEvents {
  /** Keys held back by this sync, and keys it let through again. */
  held: string[];
  released: string[];
  findings: ReportedFinding[];
}

export interface PinPlan<T> extends PinEvents {
  /**
   * The diff to write: held changes and changes the pin already knows are taken out, and an entry
   * back with another definition is added with its approved one (the upstream's held aside).
   */
  diff: ListDiff<T>;
  writes: PinWrite[];
  /** Tombstones of the entries this sync removes that carried a decision. */
  tombstones: Tombstone[];
  /** Keys whose tombstones the entries back in the list take over. */
  returned: string[];
}

/** An entry the sync removes that leaves a tombstone: its stored definition, as it left. */
export interface LeavingEntry {
  definition: JsonObject;
  enabled: boolean;
}

/** What a sync remembers of entries gone before, for the list it plans. */
export interface PinMemory {
  /** Tombstones with the keys of the entries the sync adds, and ones shaped like them. */
  tombstones: readonly Tombstone[];
  /** Whether a key's tombstone was dropped for room (forgotten-keys.ts). */
  forgotten(key: string): boolean;
  /** The removed entries that leave tombstones, by id. */
  leaving: ReadonlyMap<string, LeavingEntry>;
}

/** A list with nothing gone before, for a sync that remembers nothing. */
export const NO_MEMORY: PinMemory = {
  tombstones: [],
  forgotten: () => false,
  leaving: new Map(),
};

/** A report's pin part where nothing is pinned (resources). */
export const NO_PINS: PinEvents = {
  held: [],
  released: [],
  findings: [],
};

/** What the plan needs to know of one kind of definition. */
export interface PinnedKind<T> {
  keyOf(definition: T): string;
  hashOf(definition: T): string;
  /** The scanner's findings on a definition the sync has not seen before. */
  scan(definition: T): StoredFinding[];
  /** What a rename keeps and changes of a definition (rename-view.ts). */
  view(definition: T): RenameView;
}

/**
 * Which of a sync's changes are served and which are held back, for one list of one gateway.
 * The stored definition of a pinned entry stays the approved one: a change is kept aside in its
 * quarantine until an operator approves it, and is dropped if the upstream goes back to the pin.
 * A pin outlives its entry's absence (`memory`): an entry that leaves and comes back is judged as
 * one that never left, and a new name for a pinned entry that left with its interface and much of
 * its description, but not all, is held as a suspected rename. Each entry is hashed and scanned in
 * turns (Pacer), so that a long list does not hold the replica's other requests.
 */
export async function planPins<T>(
  diff: ListDiff<T>,
  stored: readonly PinnedDigest[],
  kind: PinnedKind<T>,
  settings: PinSettings,
  now: Date,
  memory: PinMemory = NO_MEMORY,
): Promise<PinPlan<T>> {
  const pacer = new Pacer();
  const byId = new Map(stored.map((entry) => [entry.id, entry]));
  const plan: PinPlan<T> = {
    diff: { ...diff, added: [], updated: [] },
    writes: [],
    held: [],
    released: [],
    findings: [],
    tombstones: [],
    returned: [],
  };
  const record = (key: string, outcome: Outcome) => {
    if (outcome.pin) plan.writes.push({ key, ...outcome.pin });
    if (outcome.event === 'held') plan.held.push(key);
    if (outcome.event === 'released') plan.released.push(key);
  };
  const scanned = (key: string, definition: T) => {
    const findings = kind.scan(definition);
    for (const finding of findings)
      plan.findings.push({
        name: key,
        rule: finding.rule,
        severity: finding.severity,
        field: finding.field,
      });
    return findings;
  };
  for (const { id } of diff.removed) {
    const leaving = memory.leaving.get(id);
    const entry = byId.get(id);
    if (leaving && entry) plan.tombstones.push(tombstoneOf(entry, leaving, kind));
  }
  const remembered = new Map(memory.tombstones.map((tombstone) => [tombstone.key, tombstone]));
  // An entry the upstream still lists (or lists again) was not renamed.
  const removedIds = new Set(diff.removed.map((entry) => entry.id));
  const listed = new Set([
    ...stored.filter((entry) => !removedIds.has(entry.id)).map((entry) => entry.key),
    ...diff.added.map((definition) => kind.keyOf(definition)),
  ]);
  const renames = new RenameSearch(
    [...memory.tombstones, ...plan.tombstones].filter(
      (tombstone) => tombstone.pinnedHash !== null && !listed.has(tombstone.key),
    ),
  );
  for (const definition of diff.added) {
    await pacer.turn();
    const key = kind.keyOf(definition);
    const hash = kind.hashOf(definition);
    const findings = scanned(key, definition);
    const tombstone = remembered.get(key);
    let arrival: Arrival;
    if (tombstone) {
      plan.returned.push(key);
      arrival = returned(tombstone, hash, definition, findings, settings, now);
    } else if (memory.forgotten(key)) {
      arrival = heldNew('returned', findings, now);
    } else {
      // The view costs a digest of the whole definition: none when nothing could be its source.
      const source = renames.empty ? undefined : await renames.find(kind.view(definition), pacer);
      arrival = source
        ? heldNew('renamed', findings, now, source.key)
        : added(hash, findings, settings, now);
    }
    plan.diff.added.push(arrival.store === undefined ? definition : (arrival.store as T));
    record(key, arrival);
  }
  const updated = new Set<string>();
  for (const update of diff.updated) {
    await pacer.turn();
    const entry = byId.get(update.id)!;
    updated.add(entry.id);
    const hash = kind.hashOf(update.definition);
    const known = entry.quarantine?.held?.hash === hash || entry.rejectedHash === hash;
    const outcome = known
      ? { write: false, pin: null }
      : changed(
          entry,
          hash,
          update.definition,
          scanned(entry.key, update.definition),
          settings,
          now,
        );
    if (outcome.write) plan.diff.updated.push(update);
    else plan.diff.unchanged += 1;
    record(entry.key, outcome);
  }
  // The upstream serves the stored definition again: a change held from it is moot.
  for (const entry of stored)
    if (entry.quarantine?.held && !updated.has(entry.id) && !removedIds.has(entry.id))
      record(entry.key, { write: false, pin: pinOf(entry, null), event: 'released' });
  return plan;
}

function changed<T>(
  entry: PinnedDigest,
  hash: string,
  definition: T,
  found: StoredFinding[],
  settings: PinSettings,
  now: Date,
): Outcome {
  const flagged = settings.holdFindings(found);
  const findings = found.length > 0 ? found : null;
  const { quarantine } = entry;
  if (quarantine && !quarantine.held) {
    // The stored definition itself waits: it follows the upstream, and goes out once it is the
    // pin, or, held only for a finding, once the upstream took out what was flagged. A suspected
    // rename or forgotten return waits for an operator whatever the upstream does.
    const sticky = STICKY_REASONS.has(quarantine.reason);
    const release =
      !flagged &&
      !sticky &&
      (entry.pinnedHash === hash ||
        (quarantine.reason === 'finding' &&
          entry.pinnedHash === null &&
          settings.mode !== 'review'));
    // Served for the first time on a gateway that pins on first sight: pinned as it is served.
    const firstSight = release && entry.pinnedHash === null && settings.mode === 'first-sight';
    return {
      write: true,
      pin: {
        ...pinOf(
          entry,
          release ? null : { ...quarantine, ...(flagged && !sticky ? { reason: 'finding' } : {}) },
        ),
        ...(firstSight ? { pinnedHash: hash } : {}),
        findings,
      },
      event: release ? 'released' : undefined,
    };
  }
  if (entry.pinnedHash !== null || flagged) {
    const held: Quarantine = {
      reason: flagged ? 'finding' : 'changed',
      since: quarantine?.since ?? now.toISOString(),
      held: { hash, definition: definition as JsonObject },
    };
    return { write: false, pin: { ...pinOf(entry, held), findings }, event: 'held' };
  }
  // Neither pinned nor flagged: served at once, as without pins (a held change is superseded).
  return {
    write: true,
    pin: { ...pinOf(entry, null), findings },
    event: quarantine ? 'released' : undefined,
  };
}

function tombstoneOf<T>(
  entry: PinnedDigest,
  leaving: LeavingEntry,
  kind: PinnedKind<T>,
): Tombstone {
  return {
    key: entry.key,
    pinnedHash: entry.pinnedHash,
    rejectedHash: entry.rejectedHash,
    enabled: leaving.enabled,
    contentHash: entry.contentHash,
    definition: keptDefinition(leaving.definition),
    ...kind.view(leaving.definition as T),
  };
}

function pinOf(entry: PinnedDigest, quarantine: Quarantine | null): Omit<PinWrite, 'key'> {
  return { pinnedHash: entry.pinnedHash, rejectedHash: entry.rejectedHash, quarantine };
}

/** Whether a plan changes what is served beyond the diff it passes on. */
export function pinsChanged(plan: PinEvents): boolean {
  return plan.held.length + plan.released.length > 0;
}
