import { CLIENT_TOOL_NAME_LIMIT } from '../common/tool-name-rule';

/** The S. No. of a row: numbering continues across pages, so row 0 at offset 25 is 26. */
export function serialNumber(index: number, offset: number): number {
  return offset + index + 1;
}

/** At most `max` characters (code points), ending in an ellipsis when cut. */
export function truncate(text: string | null | undefined, max: number): string {
  const chars = Array.from(text ?? '');
  if (chars.length <= max) return chars.join('');
  return `${chars
    .slice(0, Math.max(0, max - 1))
    .join('')
    .trimEnd()}…`;
}

/** Indented JSON for display; the template escapes it like any other text. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

/** `2025-01-31 14:05 UTC`, or an em dash for never. */
export function formatTime(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Common clients refuse tool names over 64 characters; the pages flag them. */
export function isLongToolName(name: string): boolean {
  return name.length > CLIENT_TOOL_NAME_LIMIT;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
