/** One line of a difference: in both, only in the newer text, or only in the older one. */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

export interface LineDiff {
  lines: DiffLine[];
  /** Whether the two texts differ. */
  changed: boolean;
  /** Too long to compare line by line: shown as the old text removed and the new one added. */
  replaced: boolean;
}

/** Lines each side beyond which two texts are shown as replaced rather than compared. */
export const DIFF_LINE_CAP = 2000;

/**
 * A line diff (longest common subsequence) of two texts. What they share at the start and end is
 * set aside first, so a small change in a long text stays cheap; what remains is compared only up
 * to `cap` lines a side (the table is `cap`² cells), and shown as replaced beyond that.
 */
export function lineDiff(before: string, after: string, cap = DIFF_LINE_CAP): LineDiff {
  const old = splitLines(before);
  const next = splitLines(after);
  let start = 0;
  while (start < old.length && start < next.length && old[start] === next[start]) start++;
  let end = 0;
  while (
    end < old.length - start &&
    end < next.length - start &&
    old[old.length - 1 - end] === next[next.length - 1 - end]
  )
    end++;
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  const head = old.slice(0, start).map(same);
  const tail = old.slice(old.length - end).map(same);
  const a = old.slice(start, old.length - end);
  const b = next.slice(start, next.length - end);
  const changed = a.length + b.length > 0;
  if (a.length > cap || b.length > cap) {
    return {
      lines: [
        ...head,
        ...a.map((text): DiffLine => ({ kind: 'removed', text })),
        ...b.map((text): DiffLine => ({ kind: 'added', text })),
        ...tail,
      ],
      changed,
      replaced: true,
    };
  }
  return { lines: [...head, ...middle(a, b), ...tail], changed, replaced: false };
}

/** LCS of two short line lists, by a table of suffix lengths. */
function middle(a: string[], b: string[]): DiffLine[] {
  const width = b.length + 1;
  const table = new Uint16Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      table[i * width + j] =
        a[i] === b[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      lines.push({ kind: 'removed', text: a[i++]! });
    } else {
      lines.push({ kind: 'added', text: b[j++]! });
    }
  }
  while (i < a.length) lines.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) lines.push({ kind: 'added', text: b[j++]! });
  return lines;
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/\r?\n/);
}

/** One field of a definition, old against new. */
export interface FieldDiff extends LineDiff {
  field: string;
  /** How the page names it (`_meta` for `meta`). */
  label: string;
}

const LABELS: Record<string, string> = { meta: '_meta' };

/**
 * Two definitions of one entry (as stored, and as held aside), field by field in the stored
 * definition's order: text as it is, anything else as indented JSON. Both come out of `jsonb`,
 * which orders object keys one way, so equal objects print alike.
 */
export function definitionDiff(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): FieldDiff[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.map((field) => ({
    field,
    label: LABELS[field] ?? field,
    ...lineDiff(shown(before[field]), shown(after[field])),
  }));
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}
