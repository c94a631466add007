import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { type Env, fail, value } from './env-values';
import { type DatabaseConfig } from './slices/database.settings';

/* What only the environment sets: the database, secrets, proxies, the address, stdio, logs. */

export function database(env: Env, dataDir: string): DatabaseConfig {
  const raw = value(env, 'DATABASE_URL');
  if (raw === undefined) return { mode: 'embedded', dataDir: join(dataDir, 'pgdata') };
  if (raw === 'pglite://memory') return { mode: 'embedded', dataDir: null };
  const copy = /^pglite:\/\/memory\?from=(.+)$/.exec(raw);
  if (copy) {
    const from = decodeURIComponent(copy[1]!);
    if (!isAbsolute(from) || !existsSync(from))
      fail('DATABASE_URL', 'must name an existing backup file by its absolute path', raw);
    return { mode: 'embedded', dataDir: null, from };
  }
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    fail('DATABASE_URL', "must be a postgres:// URL or 'pglite://memory'", raw);
  }
  return { mode: 'postgres', url: raw };
}

/**
 * A secret from the environment or, when unset, one generated once and kept in DATA_DIR so that
 * restarts keep issued tokens and encrypted columns readable.
 */
export function persistedSecret(
  env: Env,
  name: string,
  dataDir: string,
  generate: () => string,
): string {
  const fromEnv = value(env, name);
  if (fromEnv !== undefined) return fromEnv;
  const file = join(dataDir, name.toLowerCase());
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = generate();
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function encryptionKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    fail('ENCRYPTION_KEY', 'must be 32 bytes, as 64 hex characters or base64', '<redacted>');
  }
  return key;
}

export function metricsToken(env: Env): string | null {
  const token = value(env, 'METRICS_TOKEN') ?? null;
  if (token !== null && token.length < 16)
    fail('METRICS_TOKEN', 'must be at least 16 characters', '<redacted>');
  return token;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function trustedProxies(env: Env): string[] {
  const entries = (value(env, 'TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const prefixValid =
      prefix === undefined ||
      (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.has(entry) && (family === 0 || !prefixValid || rest.length > 0)) {
      fail(
        'TRUSTED_PROXIES',
        'must list IP addresses, CIDR ranges or loopback, linklocal, uniquelocal',
        entry,
      );
    }
  }
  return entries;
}

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function host(env: Env): string | null {
  const raw = value(env, 'HOST');
  if (raw === undefined) return null;
  // An IPv6 address may come bracketed, as in a URL.
  const bracketed = /^\[(.*)\]$/.exec(raw)?.[1];
  const address = bracketed ?? raw;
  const valid =
    bracketed === undefined ? isIP(raw) !== 0 || HOST_NAME.test(raw) : isIP(bracketed) === 6;
  if (!valid) fail('HOST', 'must be an IP address or a host name', raw);
  return address;
}

export function stdioCommands(env: Env): string[] {
  const commands = (value(env, 'STDIO_COMMANDS') ?? '')
    .split(',')
    .map((command) => command.trim())
    .filter((command) => command !== '');
  for (const command of commands) {
    // Names or absolute paths only: the command is run without a shell, exactly as listed.
    if (!/^[A-Za-z0-9_./+-]{1,1024}$/.test(command) || command.includes('..'))
      fail('STDIO_COMMANDS', 'must list command names or absolute paths, comma-separated', command);
  }
  return [...new Set(commands)];
}

export function logFormat(env: Env): 'json' | 'pretty' {
  const raw = value(env, 'LOG_FORMAT');
  if (raw === undefined) return env.NODE_ENV === 'development' ? 'pretty' : 'json';
  if (raw !== 'json' && raw !== 'pretty') fail('LOG_FORMAT', 'must be json or pretty', raw);
  return raw;
}
