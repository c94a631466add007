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

/**
 * One CSV cell: quoted when it must be, and with a leading `'` when a spreadsheet would take it
 * for a formula (CSV injection).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
