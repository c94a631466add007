import { admitToolDefinition, type ToolDefinition } from '../tools/tool-definition';
import { contentHash } from '../tools/tool-hash';
import { type SyncConflict, type SyncReport, type SyncWarning } from './sync-report';

/** What the differ needs of a stored tool. */
export interface StoredToolDigest {
  id: string;
  originalName: string;
  contentHash: string;
}

/** The changes that bring the stored tools of one gateway in line with its upstream's list. */
export interface ToolListDiff {
  added: ToolDefinition[];
  updated: { id: string; definition: ToolDefinition }[];
  removed: { id: string; name: string }[];
  unchanged: number;
  /** Upstream tools that will not be stored, with the reason. */
  conflicts: SyncConflict[];
  /** Upstream tools stored with a repair, such as a truncated description. */
  warnings: SyncWarning[];
}

/**
 * Compares one gateway's stored tools with the list its upstream just sent, by original name and
 * content hash. Every upstream entry is untrusted: each is admitted on its own, so a malformed
 * one is a conflict and the rest still apply. When a name is listed twice the first entry decides
 * and the later ones are conflicts. A stored tool whose upstream definition is now refused is
 * removed, so that nothing serves a definition the upstream no longer has.
 */
export function diffToolLists(stored: StoredToolDigest[], upstream: unknown[]): ToolListDiff {
  const conflicts: SyncConflict[] = [];
  const warnings: SyncWarning[] = [];
  const listed = new Set<string>();
  const admitted = new Map<string, ToolDefinition>();
  for (const raw of upstream) {
    const admission = admitToolDefinition(raw);
    const name = admission.ok ? admission.tool.name : admission.name;
    if (listed.has(name)) {
      conflicts.push({
        name,
        reason: 'the upstream lists this name more than once; the first entry was used',
      });
      continue;
    }
    listed.add(name);
    if (!admission.ok) {
      conflicts.push({ name, reason: admission.reason });
      continue;
    }
    admitted.set(name, admission.tool);
    for (const reason of admission.warnings) warnings.push({ name, reason });
  }

  const updated: ToolListDiff['updated'] = [];
  const removed: ToolListDiff['removed'] = [];
  let unchanged = 0;
  const storedNames = new Set<string>();
  for (const tool of stored) {
    storedNames.add(tool.originalName);
    const definition = admitted.get(tool.originalName);
    if (definition === undefined) removed.push({ id: tool.id, name: tool.originalName });
    else if (contentHash(definition) === tool.contentHash) unchanged += 1;
    else updated.push({ id: tool.id, definition });
  }
  const added = [...admitted.values()].filter((definition) => !storedNames.has(definition.name));

  return { added, updated, removed, unchanged, conflicts, warnings };
}

/** Whether applying the diff changes the catalogue at all. */
export function diffChangesCatalog(diff: ToolListDiff): boolean {
  return diff.added.length + diff.updated.length + diff.removed.length > 0;
}

/**
 * The report of an applied diff. `added` holds only the tools the writer actually stored; the ones
 * it refused (virtual-name clashes) arrive as `writeConflicts`.
 */
export function syncReportOf(
  diff: ToolListDiff,
  addedNames: string[],
  writeConflicts: SyncConflict[],
): SyncReport {
  const refused = new Set(writeConflicts.map((conflict) => conflict.name));
  return {
    added: [...addedNames].sort(byName),
    updated: diff.updated.map((tool) => tool.definition.name).sort(byName),
    removed: diff.removed.map((tool) => tool.name).sort(byName),
    unchanged: diff.unchanged,
    conflicts: [...diff.conflicts, ...writeConflicts],
    warnings: diff.warnings.filter((warning) => !refused.has(warning.name)),
  };
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
