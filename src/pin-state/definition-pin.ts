import { type FindingSeverity } from '../scanner/finding';
import { type JsonObject } from '../common/json-value';

/**
 * How a gateway pins what its upstream serves:
 * - `off`: changes are served at once, unless an operator pinned the entry by hand;
 * - `first-sight`: every definition is pinned as first synced; a later change waits for approval;
 * - `review`: a new entry waits for approval too, before it is ever served.
 */
export const PINNING_MODES = ['off', 'first-sight', 'review'] as const;
export type PinningMode = (typeof PINNING_MODES)[number];

/**
 * Why an entry is held back: new under review, changed from its pin, flagged by the scanner, a
 * new name for a pinned entry that left (same interface, much the same description, other text),
 * or back under a name whose pin Portico had to forget for room (see pin-tombstone.ts).
 */
export type QuarantineReason = 'new' | 'changed' | 'finding' | 'renamed' | 'returned';

/**
 * Reasons no later sync or rescan takes back: only an operator's decision ends them (a change
 * that takes out a flagged text does not make a suspected rename any less suspect).
 */
export const STICKY_REASONS: ReadonlySet<QuarantineReason> = new Set(['renamed', 'returned']);

/**
 * An entry held back from clients: not listed, not callable, not searchable. When `held` is set,
 * the stored definition is the approved one and `held` is the upstream's newer one; when it is
 * not, the stored definition itself waits (a new entry, or one whose pin was set elsewhere).
 */
export interface Quarantine {
  reason: QuarantineReason;
  /** ISO time the entry was held. */
  since: string;
  held?: { hash: string; definition: JsonObject };
  /** For a suspected rename: the upstream name (or URI template) of the pinned entry that left. */
  renamedFrom?: string;
}

/** The columns that pin one definition, on tools, prompts and resource templates alike. */
export interface PinState {
  contentHash: string;
  /** The approved definition's hash; null: not pinned. */
  pinnedHash: string | null;
  /** A held definition an operator rejected: syncs that bring it again keep serving the pin. */
  rejectedHash: string | null;
  quarantine: Quarantine | null;
}

/** The gateway's pinning settings, as a sync reads them. */
export interface PinSettings {
  mode: PinningMode;
  /** Whether the scanner's findings on a definition hold it back. */
  holdFindings: (findings: readonly { severity: string }[]) => boolean;
}

export { type FindingSeverity, SEVERITIES as FINDING_SEVERITIES } from '../scanner/finding';

/** The least severe finding first: `low` holds back what `medium` and `high` do, and more. */
const SEVERITY_RANK: Record<FindingSeverity, number> = { high: 0, medium: 1, low: 2 };

/** The gateway columns pin settings come from. */
export interface PinSettingsSource {
  pinning: PinningMode;
  quarantineOnFinding: FindingSeverity | null;
}

export function pinSettingsOf(gateway: PinSettingsSource): PinSettings {
  const threshold = gateway.quarantineOnFinding;
  return {
    mode: gateway.pinning,
    holdFindings: (findings) =>
      threshold !== null &&
      findings.some(
        (finding) => SEVERITY_RANK[finding.severity as FindingSeverity] <= SEVERITY_RANK[threshold],
      ),
  };
}
