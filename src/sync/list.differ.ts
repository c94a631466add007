import { Pacer } from '../common/pacer';
import { type Admission } from '../resources/resource-definition';
import { admitToolDefinition, type ToolDefinition } from '../tools/tool-definition';
import { contentHash } from '../tools/tool-hash';
import { type PinEvents } from '../pinning/pin-plan';
import {
  type ListDiff,
  type SyncConflict,
  type SyncReport,
  type SyncWarning,
} from '../sync-report/sync-report';

/** What the differ needs of a stored entry: its upstream key (name or URI) and content hash. */
export interface StoredDigest {
  id: string;
  key: string;
  contentHash: string;
}

/** What the differ needs of a stored tool. */
export interface StoredToolDigest {
  id: string;
  originalName: string;
  contentHash: string;
}

export type ToolListDiff = ListDiff<ToolDefinition>;

/**
 * Compares one gateway's stored entries with the list its upstream just sent, by key and content
 * hash. Every upstream entry is untrusted: each is admitted on its own, so a malformed one is a
 * conflict and the rest still apply. When a key is listed twice the first entry decides and the
 * later ones are conflicts. A stored entry whose upstream definition is now refused is removed, so
 * that nothing serves a definition the upstream no longer has. A long list is read in turns
 * (Pacer), so that other requests run meanwhile.
 */
export async function diffLists<T>(
  stored: StoredDigest[],
  upstream: unknown[],
  admit: (raw: unknown) => Admission<T>,
  hash: (definition: T) => string,
): Promise<ListDiff<T>> {
  const pacer = new Pacer();
  const conflicts: SyncConflict[] = [];
  const warnings: SyncWarning[] = [];
  const listed = new Set<string>();
  const admitted = new Map<string, T>();
  for (const raw of upstream) {
    await pacer.turn();
    const admission = admit(raw);
    const { key } = admission;
    if (listed.has(key)) {
      conflicts.push({
        name: key,
        reason: 'the upstream lists this name more than once; the first entry was used',
      });
      continue;
    }
    listed.add(key);
    if (!admission.ok) {
      conflicts.push({ name: key, reason: admission.reason });
      continue;
    }
    admitted.set(key, admission.definition);
    for (const reason of admission.warnings) warnings.push({ name: key, reason });
  }

  const updated: ListDiff<T>['updated'] = [];
  const removed: ListDiff<T>['removed'] = [];
  let unchanged = 0;
  for (const entry of stored) {
    await pacer.turn();
    const definition = admitted.get(entry.key);
    admitted.delete(entry.key);
    if (definition === undefined) removed.push({ id: entry.id, name: entry.key });
    else if (hash(definition) === entry.contentHash) unchanged += 1;
    else updated.push({ id: entry.id, definition });
  }
  return { added: [...admitted.values()], updated, removed, unchanged, conflicts, warnings };
}

/** The tools' diff: keyed by original name. */
export function diffToolLists(
  stored: StoredToolDigest[],
  upstream: unknown[],
): Promise<ToolListDiff> {
  return diffLists(
    stored.map(({ id, originalName, contentHash: hash }) => ({
      id,
      key: originalName,
      contentHash: hash,
    })),
    upstream,
    (raw) => {
      const admission = admitToolDefinition(raw);
      return admission.ok
        ? {
            ok: true,
            key: admission.tool.name,
            definition: admission.tool,
            warnings: admission.warnings,
          }
        : { ok: false, key: admission.name, reason: admission.reason };
    },
    contentHash,
  );
}

/** Whether applying the diff changes the catalogue at all. */
export function diffChangesCatalog(diff: ListDiff<unknown>): boolean {
  return diff.added.length + diff.updated.length + diff.removed.length > 0;
}

/**
 * The report of an applied diff. `added` holds the keys of the entries the writer actually stored;
 * the ones it refused (virtual-name clashes) arrive as `writeConflicts`.
 */
export function syncReportOf<T>(
  diff: ListDiff<T>,
  keyOf: (definition: T) => string,
  addedKeys: string[],
  writeConflicts: SyncConflict[],
  pins: PinEvents,
): SyncReport {
  const refused = new Set(writeConflicts.map((conflict) => conflict.name));
  const held = pins.held.filter((key) => !refused.has(key));
  return {
    ...(held.length > 0 ? { quarantined: held.sort(byName) } : {}),
    ...(pins.released.length > 0 ? { released: [...pins.released].sort(byName) } : {}),
    ...(pins.findings.length > 0 ? { findings: pins.findings } : {}),
    added: [...addedKeys].sort(byName),
    updated: diff.updated.map((entry) => keyOf(entry.definition)).sort(byName),
    removed: diff.removed.map((entry) => entry.name).sort(byName),
    unchanged: diff.unchanged,
    conflicts: [...diff.conflicts, ...writeConflicts],
    warnings: diff.warnings.filter((warning) => !refused.has(warning.name)),
  };
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
