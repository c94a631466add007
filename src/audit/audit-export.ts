import { type ServerResponse } from 'node:http';
import { type AuditEntryResponseDto } from './dto/audit-entry-response.dto';

export const CSV_COLUMNS: readonly (keyof AuditEntryResponseDto)[] = [
  'occurredAt',
  'kind',
  'action',
  'outcome',
  'status',
  'durationMs',
  'username',
  'userId',
  'tokenId',
  'clientName',
  'serverId',
  'gateway',
  'target',
  'argumentsDigest',
  'detail',
  'approval',
  'task',
  'actedBy',
  'requestId',
  'traceId',
  'id',
];

/** What makes a spreadsheet read a cell as a formula, after any leading blanks. */
const FORMULA_START = /^[\s"']*[=+\-@]/;
/**
 * Where a cell could start if the file were read with another separator (`;` or tab, as some
 * locales and importers do) or a reader broke lines inside a quoted cell: there too.
 */
const INNER_FORMULA = /([,;\t\r\n"][ ]*)(?=[=+\-@])/g;

/**
 * One CSV cell. Numbers go as they are; everything else is quoted, and a `'` goes before what a
 * spreadsheet would take for a formula (CSV injection): at the start, and after a character that
 * some reader of the file could take for a separator or a line's end.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(
    INNER_FORMULA,
    "$1'",
  );
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(',')}\r\n`;
}

export function csvRow(entry: AuditEntryResponseDto): string {
  return `${CSV_COLUMNS.map((column) => csvCell(entry[column])).join(',')}\r\n`;
}

/**
 * Writes an export (CSV, or NDJSON) as fast as the client takes it: once Node's buffer for the
 * client is full, the next row waits until it has drained, so a slow or stalled client makes the
 * replica hold about a page of the trail, never all of it, and one that has gone stops the
 * reading of the trail.
 */
export async function writeExport(
  response: ServerResponse,
  entries: AsyncIterable<AuditEntryResponseDto>,
  csv: boolean,
): Promise<void> {
  if (csv) response.write(csvHeader());
  for await (const entry of entries) {
    if (response.destroyed) return;
    if (!response.write(csv ? csvRow(entry) : `${JSON.stringify(entry)}\n`))
      await drained(response);
  }
  response.end();
}

/** Once the response can take more, or has closed. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (response.destroyed) return resolve();
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}
