import { type ReportedFinding } from '../sync-report/sync-report';
import {
  type ConsolidationDrift,
  type ReportedList,
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
  /** Each list's length in the sync, and how many of them the stored report left out. */
  counts: Record<Exclude<ReportedList, 'consolidationDrift'>, number>;
  omitted: Partial<Record<ReportedList, number>>;
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
  const drifted = drift.length + (view.omitted.consolidationDrift ?? 0);
  if (drifted > 0)
    view.summary += `, ${drifted} consolidated ${drifted === 1 ? 'target' : 'targets'} drifted`;
  return { ...view, sections, consolidationDrift: drift };
}

function listView(report: SyncListReport): SyncListView {
  const omitted = report.omitted ?? {};
  const lists = {
    added: report.added,
    updated: report.updated,
    removed: report.removed,
    conflicts: report.conflicts,
    warnings: report.warnings ?? [],
    quarantined: report.quarantined ?? [],
    released: report.released ?? [],
    findings: report.findings ?? [],
  };
  const counts = Object.fromEntries(
    Object.entries(lists).map(([list, entries]) => [
      list,
      entries.length + (omitted[list as keyof typeof lists] ?? 0),
    ]),
  ) as SyncListView['counts'];
  const parts = [
    `${counts.added} added`,
    `${counts.updated} updated`,
    `${counts.removed} removed`,
    `${report.unchanged} unchanged`,
  ];
  if (counts.conflicts > 0) parts.push(plural(counts.conflicts, 'conflict'));
  if (counts.warnings > 0) parts.push(plural(counts.warnings, 'warning'));
  if (counts.quarantined > 0) parts.push(`${counts.quarantined} quarantined`);
  if (counts.released > 0) parts.push(`${counts.released} released`);
  if (counts.findings > 0) parts.push(plural(counts.findings, 'finding'));
  return {
    ...lists,
    unchanged: report.unchanged,
    counts,
    omitted,
    changed: counts.added + counts.updated + counts.removed > 0,
    summary: parts.join(', '),
  };
}
