import { type ReportedFinding } from '../sync-report/sync-report';
import {
  type ConsolidationDrift,
  type SyncConflict,
  type SyncListReport,
  type SyncReport,
} from '../sync-report/sync-report';
import { plural } from './view-helpers';

export interface SyncListView {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  conflicts: SyncConflict[];
  warnings: SyncConflict[];
  /** Held back from clients by pins until approved, and let through again. */
  quarantined: string[];
  released: string[];
  findings: ReportedFinding[];
  changed: boolean;
  /** One line, such as "2 added, 1 updated, 0 removed, 5 unchanged, 1 conflict". */
  summary: string;
}

/** A section of the report beyond tools, such as the resources. */
export interface SyncSectionView extends SyncListView {
  title: string;
  /** Prefix of the section's element ids. */
  key: string;
  /** What the lists hold: upstream names, or URIs. */
  entryLabel: string;
  /** The page where what this section quarantined is reviewed. */
  review: string;
}

export interface SyncReportView extends SyncListView {
  /** Consolidated tools' targets of this gateway withheld for schema drift. */
  consolidationDrift: ConsolidationDrift[];
  /** Prompts, resources and templates, in that order; absent when the upstream offers none. */
  sections: SyncSectionView[];
}

const QUARANTINE = '/admin/quarantine';

const SECTIONS = [
  {
    field: 'prompts',
    title: 'Prompts',
    key: 'prompts',
    entryLabel: 'Upstream name',
    review: QUARANTINE,
  },
  {
    field: 'resources',
    title: 'Resources',
    key: 'resources',
    entryLabel: 'Upstream URI',
    review: QUARANTINE,
  },
  {
    field: 'resourceTemplates',
    title: 'Resource templates',
    key: 'templates',
    entryLabel: 'Upstream URI template',
    review: QUARANTINE,
  },
  {
    field: 'skills',
    title: 'Skills',
    key: 'skills',
    entryLabel: 'Upstream skill URI',
    review: '/admin/skills',
  },
] as const;

/** A SyncReport as the pages show it: diffs with one-line summaries. */
export function syncReportView(report: SyncReport | null | undefined): SyncReportView | null {
  if (!report) return null;
  const sections: SyncSectionView[] = [];
  for (const { field, ...section } of SECTIONS) {
    const list = report[field];
    if (list) sections.push({ ...listView(list), ...section });
  }
  const drift = report.consolidationDrift ?? [];
  const view = listView(report);
  if (drift.length > 0)
    view.summary += `, ${drift.length} consolidated ${drift.length === 1 ? 'target' : 'targets'} drifted`;
  return { ...view, sections, consolidationDrift: drift };
}

function listView(report: SyncListReport): SyncListView {
  const warnings = report.warnings ?? [];
  const parts = [
    `${report.added.length} added`,
    `${report.updated.length} updated`,
    `${report.removed.length} removed`,
    `${report.unchanged} unchanged`,
  ];
  if (report.conflicts.length > 0) parts.push(plural(report.conflicts.length, 'conflict'));
  if (warnings.length > 0) parts.push(plural(warnings.length, 'warning'));
  const quarantined = report.quarantined ?? [];
  const released = report.released ?? [];
  const findings = report.findings ?? [];
  if (quarantined.length > 0) parts.push(`${quarantined.length} quarantined`);
  if (released.length > 0) parts.push(`${released.length} released`);
  if (findings.length > 0) parts.push(plural(findings.length, 'finding'));
  return {
    added: report.added,
    updated: report.updated,
    removed: report.removed,
    unchanged: report.unchanged,
    conflicts: report.conflicts,
    warnings,
    quarantined,
    released,
    findings,
    changed: report.added.length + report.updated.length + report.removed.length > 0,
    summary: parts.join(', '),
  };
}
