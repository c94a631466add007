import { type LoggingLevel } from '@modelcontextprotocol/server';

const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * Whether a notification passes the client's `logging/setLevel`. Portico filters what upstreams
 * send as well as asking them to, because not every upstream honours the level.
 */
export function passesLogLevel(
  notification: { method: string; params?: unknown },
  minimum: LoggingLevel | null,
): boolean {
  if (minimum === null || notification.method !== 'notifications/message') return true;
  const level = (notification.params as { level?: LoggingLevel } | undefined)?.level;
  return level === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(minimum);
}

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return SEVERITY.includes(value as LoggingLevel);
}
