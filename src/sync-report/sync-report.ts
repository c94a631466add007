import { type FindingSeverity } from '../scanner/finding';

/** One definition's findings, for the sync report. */
export interface ReportedFinding {
  name: string;
  rule: string;
  severity: FindingSeverity;
  field: string;
}

/**
 * A tool of this gateway that is a consolidated tool's member, and whose input schema no longer
 * matches the consolidated tool's: the target is withheld from clients until it matches again.
 */
export interface ConsolidationDrift {
  /** The member tool's upstream name. */
  name: string;
  consolidatedTool: string;
  target: string;
  /** Where the schemas differ. */
  difference: string;
}

export interface SyncConflict {
  /** The upstream (original) name, or URI for resources. */
  name: string;
  reason: string;
}

export type SyncWarning = SyncConflict;

/** The changes that bring one gateway's stored entries of one kind in line with its upstream. */
export interface ListDiff<T> {
  added: T[];
  updated: { id: string; definition: T }[];
  removed: { id: string; name: string }[];
  unchanged: number;
  /** Upstream entries that will not be stored, with the reason. */
  conflicts: SyncConflict[];
  /** Upstream entries stored with a repair, such as a truncated description. */
  warnings: SyncWarning[];
}

/** What one sync changed in one list; the lists hold upstream names (URIs for resources). */
export interface SyncListReport {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  conflicts: SyncConflict[];
  /** Entries stored with a change, for example a truncated description. */
  warnings?: SyncWarning[];
  /** Entries this sync held back from clients (definition-pin.ts), and ones it let through again. */
  quarantined?: string[];
  released?: string[];
  /** The scanner's findings on the definitions this sync brought. */
  findings?: ReportedFinding[];
}

/**
 * What one sync changed: its tools at the top level, resources, resource templates, prompts and
 * skills in their own sections (absent when the upstream offers none).
 */
export interface SyncReport extends SyncListReport {
  /** Consolidated tools' members of this gateway whose schemas drifted; absent when none did. */
  consolidationDrift?: ConsolidationDrift[];
  resources?: SyncListReport;
  resourceTemplates?: SyncListReport;
  prompts?: SyncListReport;
  /** The upstream's skills (Skills extension), by URI. */
  skills?: SyncListReport;
}
