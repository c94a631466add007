import { ConfigError } from './settings/config-error';

/** The process environment, or what a test passes for it. */
export type Env = Record<string, string | undefined>;

export function fail(name: string, rule: string, value: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${rule} (got '${value}')`);
}

export function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  if (!/^-?\d+$/.test(raw) || parsed < min || parsed > max) {
    fail(name, `must be an integer from ${min} to ${max}`, raw);
  }
  return parsed;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  return fail(name, 'must be true or false', raw);
}

export function httpUrl(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return fail(name, 'must be an absolute http(s) URL', raw);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail(name, 'must be an absolute http(s) URL', raw);
  }
  return parsed.origin + parsed.pathname.replace(/\/+$/, '');
}
