import { type JsonObject } from '../common/json-value';
import {
  type PinSettings,
  type Quarantine,
  type QuarantineReason,
} from '../pin-state/definition-pin';
import { type PinWrite, type StoredFinding } from '../pin-state/pin-columns';
import { type Tombstone } from './pin-tombstone';
import { keepsText, type RenameView } from './rename-view';

/*
 * What a sync makes of an entry the upstream lists that is not stored: new, back under a name
 * whose tombstone holds a decision, back under a forgotten name, or a suspected rename. The plan
 * (pin-plan.ts) decides which; these say what each means for the entry's pin.
 */

export interface Outcome {
  /** Whether the upstream's definition is stored (as it would be without pins). */
  write: boolean;
  /** The entry's pin after the sync; null: as it was. */
  pin: Omit<PinWrite, 'key'> | null;
  event?: 'held' | 'released';
}

/** What becomes of an entry the upstream lists that is not stored. */
export interface Arrival extends Outcome {
  /** The definition stored instead of the upstream's: the approved one of an entry back. */
  store?: JsonObject;
}

/** A new entry, judged by the gateway's mode and finding threshold. */
export function added(
  hash: string,
  findings: StoredFinding[],
  settings: PinSettings,
  now: Date,
): Outcome {
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

/**
 * An entry back under a key whose tombstone holds a decision: judged as if it had never left. The
 * pinned definition is served again; another is held aside like any change, the approved one
 * stored (or, when the tombstone could not keep it, the upstream's waiting); a rejected one keeps
 * the approved one served. One that left rejected or disabled and never pinned comes back so.
 */
export function returned<T>(
  tombstone: Tombstone,
  hash: string,
  definition: T,
  found: StoredFinding[],
  settings: PinSettings,
  now: Date,
): Arrival {
  const findings = found.length > 0 ? found : null;
  const { pinnedHash, rejectedHash, enabled } = tombstone;
  const restored = (quarantine: Quarantine | null) => ({
    pinnedHash,
    rejectedHash,
    quarantine,
    findings,
    ...(enabled ? {} : { enabled }),
  });
  if (pinnedHash === null) {
    if (hash === rejectedHash) return { write: true, pin: restored(null) };
    const fresh = added(hash, found, settings, now);
    return { ...fresh, pin: { ...fresh.pin!, rejectedHash, ...(enabled ? {} : { enabled }) } };
  }
  if (hash === pinnedHash) return { write: true, pin: restored(null) };
  const approved = tombstone.contentHash === pinnedHash ? tombstone.definition : null;
  if (hash === rejectedHash && approved)
    return { write: true, store: approved, pin: restored(null) };
  const reason = settings.holdFindings(found) ? 'finding' : 'changed';
  const since = now.toISOString();
  return approved
    ? {
        write: true,
        store: approved,
        pin: restored({ reason, since, held: { hash, definition: definition as JsonObject } }),
        event: 'held',
      }
    : { write: true, pin: restored({ reason, since }), event: 'held' };
}

/** A new entry held until an operator decides, whatever the mode: its stored definition waits. */
export function heldNew(
  reason: QuarantineReason,
  found: StoredFinding[],
  now: Date,
  from?: string,
): Arrival {
  return {
    write: true,
    pin: {
      pinnedHash: null,
      rejectedHash: null,
      quarantine: {
        reason,
        since: now.toISOString(),
        ...(from === undefined ? {} : { renamedFrom: from }),
      },
      findings: found.length > 0 ? found : null,
    },
    event: 'held',
  };
}

/**
 * The pinned entry that left (before, or in this sync) of which a new one looks like a rename
 * with its text changed: the same interface, most of the old description's words, but not the
 * same body. A plain rename (the same body) is not suspect.
 */
export function renamedFrom(
  view: RenameView,
  sources: readonly Tombstone[],
): Tombstone | undefined {
  return sources.find(
    (source) =>
      source.shape === view.shape && source.body !== view.body && keepsText(source.text, view.text),
  );
}
