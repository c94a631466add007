import { HookConfigError, HookRefusal, type ToolCallHook } from './tool-call-hook';

export const SIZE_LIMIT = 'size-limit';

/** The largest limit that can be set: far beyond any body Portico accepts. */
const MOST_BYTES = 64 * 1024 * 1024;

function limitOf(config: Record<string, unknown>, key: string): number | null {
  const value = config[key];
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MOST_BYTES)
    throw new HookConfigError(
      `Hook '${SIZE_LIMIT}': ${key} must be a whole number of bytes from 1 to ${MOST_BYTES}.`,
    );
  return value;
}

/**
 * Refuses calls whose arguments, or whose result, are larger than set, counted as UTF-8 JSON.
 * A refused result is not passed on, even in part.
 */
export function sizeLimitHook(config: Record<string, unknown>): ToolCallHook {
  const unknown = Object.keys(config).filter(
    (key) => key !== 'maxArgumentBytes' && key !== 'maxResultBytes',
  );
  if (unknown.length > 0)
    throw new HookConfigError(
      `Hook '${SIZE_LIMIT}' has no setting ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` (and ${unknown.length - 5} more)` : ''}.`,
    );
  const maxArgumentBytes = limitOf(config, 'maxArgumentBytes');
  const maxResultBytes = limitOf(config, 'maxResultBytes');
  if (maxArgumentBytes === null && maxResultBytes === null)
    throw new HookConfigError(
      `Hook '${SIZE_LIMIT}' needs maxArgumentBytes, maxResultBytes or both.`,
    );
  return {
    name: SIZE_LIMIT,
    before: (context) => {
      if (maxArgumentBytes === null) return;
      const size = Buffer.byteLength(JSON.stringify(context.arguments));
      if (size > maxArgumentBytes)
        throw new HookRefusal(
          `The arguments are ${size} bytes, over this server's limit of ${maxArgumentBytes}.`,
        );
    },
    after: (_context, result) => {
      if (maxResultBytes === null) return result;
      const size = Buffer.byteLength(JSON.stringify(result));
      if (size > maxResultBytes)
        throw new HookRefusal(
          `The result is ${size} bytes, over this server's limit of ${maxResultBytes}.`,
        );
      return result;
    },
  };
}
