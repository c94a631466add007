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
  /** How many entries each list left out past its first `REPORT_ENTRIES`; absent when none. */
  omitted?: Partial<Record<ReportedList, number>>;
}

/** The lists of a report, each bounded as it is stored. */
export type ReportedList =
  | 'added'
  | 'updated'
  | 'removed'
  | 'conflicts'
  | 'warnings'
  | 'quarantined'
  | 'released'
  | 'findings'
  | 'consolidationDrift';

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

/**
 * Entries a stored report keeps of each list, and characters of each name and reason in them: a
 * sync of 100,000 tools, or an upstream's refused name of megabytes, must not make every read of
 * its gateway that large. The entries left out are counted in `omitted`; the whole lists are in
 * the catalogue (and the held entries in the audit trail).
 */
export const REPORT_ENTRIES = 100;
export const REPORT_TEXT = 256;

const SECTIONS = ['resources', 'resourceTemplates', 'prompts', 'skills'] as const;

/** The report as it is stored and returned: each list cut to its first entries, each text clipped. */
export function boundedReport(report: SyncReport): SyncReport {
  const bounded: SyncReport = boundedList(report);
  for (const section of SECTIONS) {
    const list = report[section];
    if (list) bounded[section] = boundedList(list);
  }
  return bounded;
}

function boundedList<T extends SyncListReport>(report: T): T {
  const bounded = { ...report };
  const omitted: SyncListReport['omitted'] = {};
  for (const [key, value] of Object.entries(report)) {
    if (!Array.isArray(value)) continue;
    const list = key as ReportedList;
    if (value.length > REPORT_ENTRIES) omitted[list] = value.length - REPORT_ENTRIES;
    Object.assign(bounded, { [list]: value.slice(0, REPORT_ENTRIES).map(clipped) });
  }
  if (Object.keys(omitted).length > 0) bounded.omitted = omitted;
  return bounded;
}

/** An entry with its texts clipped; entries are names, or flat records of names and reasons. */
function clipped(entry: unknown): unknown {
  if (typeof entry === 'string') return clippedText(entry);
  if (typeof entry !== 'object' || entry === null) return entry;
  return Object.fromEntries(
    Object.entries(entry).map(([key, value]) => [
      key,
      typeof value === 'string' ? clippedText(value) : value,
    ]),
  );
}

function clippedText(text: string): string {
  return text.length > REPORT_TEXT ? `${text.slice(0, REPORT_TEXT - 1)}…` : text;
}
