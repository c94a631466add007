import { canonicalJson } from '../common/canonical-json';

/** What applying a document did, or would do, to one record. */
export interface ConfigChange {
  action: 'create' | 'update' | 'delete';
  /** The section's noun: `team`, `gateway`, `server`. */
  kind: string;
  name: string;
  fields: FieldChange[];
}

/**
 * One field's change. Scalars carry `from` and `to`; lists carry what joins and leaves. A secret
 * shows as `(secret)`: the plan is printed in CI logs.
 */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
  added?: string[];
  removed?: string[];
}

export const SECRET_SHOWN = '(secret)';

const SIGNS = { create: '+', update: '~', delete: '-' } as const;

/** The plan as a diff: `+` creates, `~` updates with the fields that change, `-` deletes. */
export function renderPlan(changes: ConfigChange[]): string {
  if (changes.length === 0) return 'No changes: the registry matches the document.\n';
  const lines: string[] = [];
  for (const change of changes) {
    lines.push(`${SIGNS[change.action]} ${change.kind} ${JSON.stringify(change.name)}`);
    for (const field of change.fields) lines.push(...renderField(change.action, field));
  }
  const count = (action: ConfigChange['action']) =>
    changes.filter((change) => change.action === action).length;
  lines.push(
    '',
    `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`,
  );
  return `${lines.join('\n')}\n`;
}

function renderField(action: ConfigChange['action'], field: FieldChange): string[] {
  if (field.added !== undefined || field.removed !== undefined) {
    return [
      ...(field.added ?? []).map((item) => `    + ${field.field}: ${item}`),
      ...(field.removed ?? []).map((item) => `    - ${field.field}: ${item}`),
    ];
  }
  if (action === 'create') return [`    ${field.field}: ${show(field.to)}`];
  return [`    ${field.field}: ${show(field.from)} -> ${show(field.to)}`];
}

function show(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

/**
 * The fields that differ between what is stored and what the document wants; objects compare by
 * content, whatever order of keys `jsonb` gave back.
 */
export function scalarChanges(
  current: Record<string, unknown> | null,
  wanted: Record<string, unknown>,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, to] of Object.entries(wanted)) {
    const from = current?.[field];
    if (current === null || canonicalJson(from) !== canonicalJson(to))
      changes.push(current === null ? { field, to } : { field, from, to });
  }
  return changes;
}

/** A list field's change, or null when the two hold the same items. */
export function listChange(
  field: string,
  current: readonly string[],
  wanted: readonly string[],
): FieldChange | null {
  const had = new Set(current);
  const wants = new Set(wanted);
  const added = [...wants].filter((item) => !had.has(item)).sort();
  const removed = [...had].filter((item) => !wants.has(item)).sort();
  if (added.length === 0 && removed.length === 0) return null;
  return { field, ...(added.length ? { added } : {}), ...(removed.length ? { removed } : {}) };
}
