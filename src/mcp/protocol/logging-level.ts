import { type LoggingLevel } from '@modelcontextprotocol/server';

/** The levels, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
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
  return level === undefined || LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(minimum);
}

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return LOGGING_LEVELS.includes(value as LoggingLevel);
}
