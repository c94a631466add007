export interface SyncConflict {
  /** The upstream (original) tool name. */
  name: string;
  reason: string;
}

export type SyncWarning = SyncConflict;

/** What one sync changed; the lists hold upstream (original) names. */
export interface SyncReport {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  conflicts: SyncConflict[];
  /** Tools stored with a change, for example a truncated description. */
  warnings?: SyncWarning[];
}

export function emptySyncReport(): SyncReport {
  return { added: [], updated: [], removed: [], unchanged: 0, conflicts: [], warnings: [] };
}
