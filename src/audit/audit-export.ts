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
