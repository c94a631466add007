import { type ListDiff } from '../sync/list.differ';
import { type JsonObject } from '../tools/tool.entity';
import { type PinSettings, type PinState, type Quarantine } from './definition-pin';
import { type StoredFinding } from './pin-columns';

/** A stored entry as the plan reads it: its upstream key, id and pin. */
export interface PinnedDigest extends PinState {
  id: string;
  key: string;
}

/** The pin columns of one entry after the sync, written by key. */
export interface PinWrite {
  key: string;
  pinnedHash: string | null;
  rejectedHash: string | null;
  quarantine: Quarantine | null;
  /** Absent: as stored (the definition was not scanned again). */
  findings?: StoredFinding[] | null;
}

/** One definition's findings, for the sync report. */
export interface ReportedFinding {
  name: string;
  rule: string;
  severity: StoredFinding['severity'];
  field: string;
}

/** What a sync's pins did to one list, for its report. */
export interface PinEvents {
  /** Keys held back by this sync, and keys it let through again. */
  held: string[];
  released: string[];
  findings: ReportedFinding[];
}

export interface PinPlan<T> extends PinEvents {
  /** The diff to write: held changes and changes the pin already knows are taken out. */
  diff: ListDiff<T>;
  writes: PinWrite[];
}

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
}

interface Outcome {
  /** Whether the upstream's definition is stored (as it would be without pins). */
  write: boolean;
  /** The entry's pin after the sync; null: as it was. */
  pin: Omit<PinWrite, 'key'> | null;
  event?: 'held' | 'released';
}

/**
 * Which of a sync's changes are served and which are held back, for one list of one gateway.
 * The stored definition of a pinned entry stays the approved one: a change is kept aside in its
 * quarantine until an operator approves it, and is dropped if the upstream goes back to the pin.
 */
export function planPins<T>(
  diff: ListDiff<T>,
  stored: readonly PinnedDigest[],
  kind: PinnedKind<T>,
  settings: PinSettings,
  now: Date,
): PinPlan<T> {
  const byId = new Map(stored.map((entry) => [entry.id, entry]));
  const plan: PinPlan<T> = {
    diff: { ...diff, updated: [] },
    writes: [],
    held: [],
    released: [],
    findings: [],
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
  for (const definition of diff.added) {
    const key = kind.keyOf(definition);
    record(key, added(kind.hashOf(definition), scanned(key, definition), settings, now));
  }
  const updated = new Set<string>();
  for (const update of diff.updated) {
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
  const removed = new Set(diff.removed.map((entry) => entry.id));
  for (const entry of stored)
    if (entry.quarantine?.held && !updated.has(entry.id) && !removed.has(entry.id))
      record(entry.key, { write: false, pin: pinOf(entry, null), event: 'released' });
  return plan;
}

function added(hash: string, findings: StoredFinding[], settings: PinSettings, now: Date): Outcome {
  const reason = settings.holdFindings(findings)
    ? 'finding'
    : settings.mode === 'review'
      ? 'new'
      : null;
  return {
    write: true,
    pin: {
      pinnedHash: reason === null && settings.mode === 'first-sight' ? hash : null,
      rejectedHash: null,
      quarantine: reason === null ? null : { reason, since: now.toISOString() },
      findings: findings.length > 0 ? findings : null,
    },
    event: reason === null ? undefined : 'held',
  };
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
    // pin, or, held only for a finding, once the upstream took out what was flagged.
    const release =
      !flagged &&
      (entry.pinnedHash === hash ||
        (quarantine.reason === 'finding' &&
          entry.pinnedHash === null &&
          settings.mode !== 'review'));
    return {
      write: true,
      pin: {
        ...pinOf(
          entry,
          release ? null : { ...quarantine, ...(flagged ? { reason: 'finding' } : {}) },
        ),
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

function pinOf(entry: PinnedDigest, quarantine: Quarantine | null): Omit<PinWrite, 'key'> {
  return { pinnedHash: entry.pinnedHash, rejectedHash: entry.rejectedHash, quarantine };
}

/** Whether a plan changes what is served beyond the diff it passes on. */
export function pinsChanged(plan: PinEvents): boolean {
  return plan.held.length + plan.released.length > 0;
}
