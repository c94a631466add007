import { type JsonObject } from '../common/json-value';
import {
  type PinSettings,
  type PinState,
  type Quarantine,
  STICKY_REASONS,
} from '../pin-state/definition-pin';
import { type StoredFinding } from '../pin-state/pin-columns';
import { type PinWrite } from '../pin-state/pin-columns';

/** What a rescan makes of one stored entry. */
export interface Rejudgement {
  /** The entry's pin after it, findings included. */
  pin: Omit<PinWrite, 'key'>;
  /** A held change the settings no longer hold: written into the entry, and served. */
  serve: JsonObject | null;
  event?: 'held' | 'released';
}

/**
 * One stored entry judged again, at once, by the gateway's settings as they are now: its latest
 * definition (a held change, or else the stored one) scanned again (`found`). What the finding
 * threshold holds is quarantined, however it was pinned before, for an operator to decide; what
 * was held only for a finding the threshold no longer counts is let through as a sync would let it
 * through. Nothing is pinned here: switching pinning on pins the rest afterwards (pin-all.ts).
 */
export function rejudgePin(
  entry: PinState,
  found: StoredFinding[],
  settings: PinSettings,
  now: Date,
): Rejudgement {
  const findings = found.length > 0 ? found : null;
  const { pinnedHash, rejectedHash, contentHash, quarantine } = entry;
  const flagged = settings.holdFindings(found);
  const since = now.toISOString();
  const judged = (held: Quarantine | null, event?: Rejudgement['event']): Rejudgement => ({
    pin: { pinnedHash, rejectedHash, quarantine: held, findings },
    serve: null,
    ...(event ? { event } : {}),
  });
  if (!quarantine) {
    if (flagged) return judged({ reason: 'finding', since }, 'held');
    // Served, yet not what is pinned: nothing should leave an entry so; hold it rather than guess.
    if (pinnedHash !== null && pinnedHash !== contentHash)
      return judged({ reason: 'changed', since }, 'held');
    return judged(null);
  }
  if (STICKY_REASONS.has(quarantine.reason)) return judged(quarantine);
  if (flagged) return judged({ ...quarantine, reason: 'finding' });
  if (quarantine.reason !== 'finding') return judged(quarantine);
  // What is let through on a gateway that pins on first sight is pinned as it is served.
  const firstSight = (hash: string) => (settings.mode === 'first-sight' ? hash : null);
  if (quarantine.held) {
    if (pinnedHash !== null) return judged({ ...quarantine, reason: 'changed' });
    return {
      pin: {
        pinnedHash: firstSight(quarantine.held.hash),
        rejectedHash,
        quarantine: null,
        findings,
      },
      serve: quarantine.held.definition,
      event: 'released',
    };
  }
  if (pinnedHash === contentHash) return judged(null, 'released');
  if (pinnedHash === null && settings.mode !== 'review')
    return {
      pin: { pinnedHash: firstSight(contentHash), rejectedHash, quarantine: null, findings },
      serve: null,
      event: 'released',
    };
  return judged({ ...quarantine, reason: pinnedHash === null ? 'new' : 'changed' });
}
