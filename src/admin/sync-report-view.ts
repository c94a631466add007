import { type SyncConflict, type SyncReport } from '../sync/sync-report';
import { plural } from './view-helpers';

export interface SyncReportView {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  conflicts: SyncConflict[];
  warnings: SyncConflict[];
  changed: boolean;
  /** One line, such as "2 added, 1 updated, 0 removed, 5 unchanged, 1 conflict". */
  summary: string;
}

/** A SyncReport as the pages show it: a diff with a one-line summary. */
export function syncReportView(report: SyncReport | null | undefined): SyncReportView | null {
  if (!report) return null;
  const warnings = report.warnings ?? [];
  const parts = [
    `${report.added.length} added`,
    `${report.updated.length} updated`,
    `${report.removed.length} removed`,
    `${report.unchanged} unchanged`,
  ];
  if (report.conflicts.length > 0) parts.push(plural(report.conflicts.length, 'conflict'));
  if (warnings.length > 0) parts.push(plural(warnings.length, 'warning'));
  return {
    added: report.added,
    updated: report.updated,
    removed: report.removed,
    unchanged: report.unchanged,
    conflicts: report.conflicts,
    warnings,
    changed: report.added.length + report.updated.length + report.removed.length > 0,
    summary: parts.join(', '),
  };
}
