/**
 * What the Prefab renderer draws for a tool result, as plain data: tables for lists of records,
 * key-value cards for records, text for the rest. Kept free of the DOM so it can be tested alone.
 */
export type Block =
  | { kind: 'text'; text: string }
  | { kind: 'table'; columns: string[]; rows: string[][]; omitted: number }
  | { kind: 'card'; entries: { key: string; value: Block }[] }
  | { kind: 'list'; items: Block[]; omitted: number };

/** Enough rows to read; a longer list says how many it left out. */
export const MAX_ROWS = 200;
const MAX_DEPTH = 4;
const MAX_CELL = 200;

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compact(value: unknown): string {
  const text =
    typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) ?? '');
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

export function toBlock(value: unknown, depth = 0): Block {
  if (!isRecord(value) && !Array.isArray(value)) {
    return { kind: 'text', text: value === undefined ? '' : compact(value) };
  }
  if (depth >= MAX_DEPTH) return { kind: 'text', text: compact(value) };
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_ROWS);
    const omitted = value.length - shown.length;
    if (shown.length > 0 && shown.every(isRecord)) {
      const columns = [...new Set(shown.flatMap((row) => Object.keys(row)))];
      return {
        kind: 'table',
        columns,
        rows: shown.map((row) => columns.map((column) => compact(row[column]))),
        omitted,
      };
    }
    return { kind: 'list', items: shown.map((item) => toBlock(item, depth + 1)), omitted };
  }
  return {
    kind: 'card',
    entries: Object.entries(value).map(([key, inner]) => ({
      key,
      value: toBlock(inner, depth + 1),
    })),
  };
}

export interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

/** The structured content when there is some, else the result's text. */
export function resultBlock(result: ToolResultLike): Block {
  if (result.structuredContent !== undefined) return toBlock(result.structuredContent);
  const texts = Array.isArray(result.content)
    ? result.content
        .filter(
          (item): item is { type: 'text'; text: string } =>
            isRecord(item) && item.type === 'text' && typeof item.text === 'string',
        )
        .map((item) => item.text)
    : [];
  return { kind: 'text', text: texts.join('\n') };
}
