import { type JsonObject } from '../common/json-value';
import {
  type PinSettings,
  type Quarantine,
  type QuarantineReason,
} from '../pin-state/definition-pin';
import { type PinWrite, type StoredFinding } from '../pin-state/pin-columns';
import { type Tombstone } from './pin-tombstone';
import { type Pacer } from '../common/pacer';
import { keepsWords, type RenameView, wordsOf } from './rename-view';

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
 * Word lookups one sync's search for suspected renames may spend, about half a second: each new
 * entry is compared with every remembered one of its interface, and an upstream that swapped a
 * thousand names and edited their descriptions made that 138 s of comparisons inside the sync's
 * transaction (a million pairs), and more with each further name.
 */
export const RENAME_LOOKUPS = 10_000_000;

/**
 * The pinned entries that left (before, or in this sync), searched for the one of which a new entry
 * looks like a rename with its text changed: the same interface, most of the old description's
 * words, but not the same body. A plain rename (the same body) is not suspect. Each text's words
 * are read once, when first compared, and count as lookups. Once the search has spent its lookups
 * it fails closed: a new entry with the interface of a source it can no longer compare is
 * suspected of renaming that source, and held.
 */
export class RenameSearch {
  private readonly byShape = new Map<string, { source: Tombstone; words?: string[] }[]>();
  private readonly spent = { lookups: 0 };

  constructor(
    sources: readonly Tombstone[],
    private readonly budget = RENAME_LOOKUPS,
  ) {
    for (const source of sources) {
      const alike = this.byShape.get(source.shape) ?? [];
      alike.push({ source });
      this.byShape.set(source.shape, alike);
    }
  }

  get empty(): boolean {
    return this.byShape.size === 0;
  }

  async find(view: RenameView, pacer: Pacer): Promise<Tombstone | undefined> {
    let words: Set<string> | undefined;
    for (const alike of this.byShape.get(view.shape) ?? []) {
      const { source } = alike;
      if (source.body === view.body) continue;
      if (this.spent.lookups >= this.budget) return source;
      await pacer.turn();
      if (!words) {
        words = wordsOf(view.text);
        this.spent.lookups += words.size;
      }
      if (!alike.words) {
        alike.words = [...wordsOf(source.text)];
        this.spent.lookups += alike.words.length;
      }
      if (keepsWords(alike.words, words, this.spent)) return source;
    }
    return undefined;
  }
}
