import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

/** jose is published as ES modules only; this CommonJS build loads it once, on first use. */
let loading: Promise<typeof Jose> | undefined;

export function jose(): Promise<typeof Jose> {
  loading ??= import('jose');
  return loading;
}
