import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { parametersOfCost } from '../common/scrypt-parameters';
import { isRole, type Role } from '../common/roles';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import { ConfigError } from './settings/config-error';
import { Knobs, readDocumentSettings } from './settings/knobs';
import { type AuditArguments, type AuditConfig } from './slices/audit.settings';
import { type ClientMetadataDocumentsConfig, type OidcConfig } from './slices/auth.settings';
import { type DatabaseConfig } from './slices/database.settings';
import { type EmbeddingsConfig } from './slices/embeddings.settings';
import { type EventBusConfig, type RateLimitStoreConfig } from './slices/events.settings';
import { type LogLevel } from './slices/observability.settings';
import { type McpRegistryConfig } from './slices/registry.settings';
import { type HttpLimits } from './slices/server.settings';
import { type UpstreamResilienceConfig } from './slices/upstream.settings';
import { type Settings } from './settings';

export { ConfigError } from './settings/config-error';

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];
const SEPARATOR_RULE = /^[A-Za-z0-9_.-]{1,8}$/;

function fail(name: string, rule: string, value: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${rule} (got '${value}')`);
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  if (!/^-?\d+$/.test(raw) || parsed < min || parsed > max) {
    fail(name, `must be an integer from ${min} to ${max}`, raw);
  }
  return parsed;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  return fail(name, 'must be true or false', raw);
}

function httpUrl(name: string, raw: string): string {
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

function database(env: Env, dataDir: string): DatabaseConfig {
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
function persistedSecret(env: Env, name: string, dataDir: string, generate: () => string): string {
  const fromEnv = value(env, name);
  if (fromEnv !== undefined) return fromEnv;
  const file = join(dataDir, name.toLowerCase());
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = generate();
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

function encryptionKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    fail('ENCRYPTION_KEY', 'must be 32 bytes, as 64 hex characters or base64', '<redacted>');
  }
  return key;
}

function metricsToken(env: Env): string | null {
  const token = value(env, 'METRICS_TOKEN') ?? null;
  if (token !== null && token.length < 16)
    fail('METRICS_TOKEN', 'must be at least 16 characters', '<redacted>');
  return token;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustedProxies(env: Env): string[] {
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

/** `a=b, c=d` as pairs; names may hold anything but commas and equals signs. */
function pairs(env: Env, name: string): [string, string][] {
  return (value(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [key, mapped, ...rest] = entry.split('=').map((part) => part.trim());
      if (!key || !mapped || rest.length > 0) fail(name, 'must be a list of group=value', entry);
      return [key, mapped];
    });
}

function oidc(env: Env, knobs: Knobs): OidcConfig | null {
  const raw = value(env, 'OIDC_ISSUER');
  if (raw === undefined) return null;
  // Validated as a URL, kept verbatim: tokens must name the issuer exactly as the provider does.
  httpUrl('OIDC_ISSUER', raw);
  const roleMap = new Map<string, Role>();
  for (const [group, role] of pairs(env, 'OIDC_ROLE_MAP')) {
    if (!isRole(role)) fail('OIDC_ROLE_MAP', 'must map groups to admin, operator or member', role);
    roleMap.set(group, role);
  }
  const teamMap = new Map<string, string[]>();
  for (const [group, team] of pairs(env, 'OIDC_TEAM_MAP'))
    teamMap.set(group, [...(teamMap.get(group) ?? []), team]);
  const defaultRole = value(env, 'OIDC_DEFAULT_ROLE') ?? null;
  if (defaultRole !== null && !isRole(defaultRole))
    fail('OIDC_DEFAULT_ROLE', 'must be admin, operator or member', defaultRole);
  return {
    issuer: raw,
    clientId: value(env, 'OIDC_CLIENT_ID') ?? null,
    clientSecret: value(env, 'OIDC_CLIENT_SECRET') ?? null,
    scopes: value(env, 'OIDC_SCOPES') ?? 'openid profile email',
    audiences: (value(env, 'OIDC_AUDIENCE') ?? '')
      .split(',')
      .map((audience) => audience.trim())
      .filter((audience) => audience !== ''),
    usernameClaim: value(env, 'OIDC_USERNAME_CLAIM') ?? 'preferred_username',
    groupsClaim: value(env, 'OIDC_GROUPS_CLAIM') ?? 'groups',
    roleMap,
    teamMap,
    defaultRole: defaultRole,
    jwksCacheSeconds: knobs.integer('OIDC_JWKS_CACHE_SECONDS'),
    label: value(env, 'OIDC_LABEL') ?? 'single sign-on',
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function clientMetadataDocuments(
  env: Env,
  knobs: Knobs,
  publicUrl: string,
): ClientMetadataDocumentsConfig {
  const allowLoopback = boolean(env, 'OAUTH_CIMD_ALLOW_LOOPBACK', false);
  // draft-ietf-oauth-client-id-metadata-document §8.6: only an authorization server that itself
  // runs on loopback may fetch from it; anywhere else it would let any client id reach inside.
  if (allowLoopback && !LOOPBACK_HOSTS.has(new URL(publicUrl).hostname))
    fail(
      'OAUTH_CIMD_ALLOW_LOOPBACK',
      'may be true only when PUBLIC_URL is a loopback URL (development and tests)',
      'true',
    );
  return {
    enabled: knobs.boolean('OAUTH_CIMD_ENABLED'),
    maxBytes: knobs.integer('OAUTH_CIMD_MAX_BYTES'),
    timeoutMs: knobs.integer('OAUTH_CIMD_TIMEOUT_MS'),
    maxCacheSeconds: knobs.integer('OAUTH_CIMD_MAX_CACHE_SECONDS'),
    allowLoopback,
  };
}

function mcpRegistry(env: Env, knobs: Knobs): McpRegistryConfig {
  const registries = (value(env, 'MCP_REGISTRIES') ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '')
    .map((url) => {
      const normal = httpUrl('MCP_REGISTRIES', url);
      const parsed = new URL(url);
      // Credentials would be shown wherever the registry is named; the registry API is public.
      if (parsed.username !== '' || parsed.password !== '')
        fail('MCP_REGISTRIES', 'must list URLs without credentials', url);
      if (parsed.search !== '' || parsed.hash !== '')
        fail('MCP_REGISTRIES', 'must list base URLs without query or fragment', url);
      return normal;
    });
  return {
    registries: [...new Set(registries)],
    maxBytes: knobs.integer('MCP_REGISTRY_MAX_BYTES'),
    pageSize: knobs.integer('MCP_REGISTRY_PAGE_SIZE'),
    maxPages: knobs.integer('MCP_REGISTRY_MAX_PAGES'),
    timeoutMs: knobs.integer('MCP_REGISTRY_TIMEOUT_MS'),
  };
}

function embeddings(env: Env, knobs: Knobs): EmbeddingsConfig | null {
  const raw = value(env, 'EMBEDDINGS_URL');
  const model = value(env, 'EMBEDDINGS_MODEL');
  if (raw === undefined) {
    if (model !== undefined) fail('EMBEDDINGS_MODEL', 'needs EMBEDDINGS_URL', model);
    return null;
  }
  if (model === undefined) return fail('EMBEDDINGS_MODEL', 'must be set with EMBEDDINGS_URL', '');
  if (model.length > 200) fail('EMBEDDINGS_MODEL', 'must be at most 200 characters', model);
  return {
    url: httpUrl('EMBEDDINGS_URL', raw),
    model,
    apiKey: value(env, 'EMBEDDINGS_API_KEY') ?? null,
    queryTimeoutMs: knobs.integer('EMBEDDINGS_QUERY_TIMEOUT_MS'),
    indexTimeoutMs: knobs.integer('EMBEDDINGS_INDEX_TIMEOUT_MS'),
  };
}

function stdioCommands(env: Env): string[] {
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

/** Every setting, parsed once from the environment and CONFIG_FILE at start-up. */
export function loadConfig(env: Env): Settings {
  const configFile =
    value(env, 'CONFIG_FILE') === undefined ? null : resolve(value(env, 'CONFIG_FILE')!);
  const knobs = new Knobs(env, configFile === null ? {} : readDocumentSettings(configFile));
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const dataDir = resolve(value(env, 'DATA_DIR') ?? './data');
  const publicUrl = httpUrl('PUBLIC_URL', value(env, 'PUBLIC_URL') ?? `http://localhost:${port}`);

  const separator = value(env, 'GATEWAY_TOOL_NAME_SEPARATOR') ?? '-';
  if (!SEPARATOR_RULE.test(separator)) {
    fail('GATEWAY_TOOL_NAME_SEPARATOR', 'must be 1-8 characters of A-Z a-z 0-9 _ . -', separator);
  }

  const logLevel = (value(env, 'LOG_LEVEL') ?? 'log') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    fail('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`, logLevel);

  const allowedOrigins = (value(env, 'ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
    .map((origin) =>
      origin === '*'
        ? fail('ALLOWED_ORIGINS', 'must list origins, not *', origin)
        : new URL(httpUrl('ALLOWED_ORIGINS', origin)).origin,
    );

  const allowedHosts = (value(env, 'ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '');
  for (const host of allowedHosts) {
    if (!/^[a-z0-9.-]+(:\d{1,5})?$/.test(host))
      fail('ALLOWED_HOSTS', 'must list host[:port] names', host);
  }

  const alwaysLoaded = knobs.names('MCP_TOOL_SEARCH_ALWAYS_LOADED');
  for (const name of alwaysLoaded) {
    if (!TOOL_NAME_RULE.test(name))
      fail('MCP_TOOL_SEARCH_ALWAYS_LOADED', 'must list tool names (A-Z a-z 0-9 _ . -)', name);
  }

  const redisUrl = value(env, 'REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl))
    fail('REDIS_URL', 'must be a redis:// URL', redisUrl);
  const redisNamespace = value(env, 'REDIS_NAMESPACE') ?? 'portico';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(redisNamespace))
    fail('REDIS_NAMESPACE', 'must be 1-64 of A-Z a-z 0-9 _ . -', redisNamespace);

  const adminUsername = value(env, 'ADMIN_USERNAME') ?? 'admin';
  const adminPassword = value(env, 'ADMIN_PASSWORD') ?? null;
  if (adminPassword !== null && adminPassword.length < 8) {
    fail('ADMIN_PASSWORD', 'must be at least 8 characters', '<redacted>');
  }

  return {
    port,
    host: host(env),
    httpLimits: httpLimits(knobs),
    publicUrl,
    database: database(env, dataDir),
    databaseTimeouts: {
      connectMs: knobs.integer('DATABASE_CONNECT_TIMEOUT_MS'),
      queryMs: knobs.integer('DATABASE_QUERY_TIMEOUT_MS'),
    },
    authCacheTtlSeconds: knobs.integer('AUTH_CACHE_TTL_SECONDS'),
    dataDir,
    toolNameSeparator: separator,
    adminUsername,
    adminPassword,
    passwordHashing: parametersOfCost(knobs.integer('PASSWORD_HASH_COST')),
    jwtSecret: persistedSecret(env, 'JWT_SECRET', dataDir, () =>
      randomBytes(48).toString('base64url'),
    ),
    tokenTtlSeconds: knobs.integer('TOKEN_TTL_SECONDS'),
    encryptionKey: encryptionKey(
      persistedSecret(env, 'ENCRYPTION_KEY', dataDir, () => randomBytes(32).toString('hex')),
    ),
    syncIntervalSeconds: knobs.integer('SYNC_INTERVAL_SECONDS'),
    upstreamTimeoutMs: knobs.integer('UPSTREAM_TIMEOUT_MS'),
    upstreamEraTtlSeconds: knobs.integer('UPSTREAM_ERA_TTL_SECONDS'),
    inputRoundTtlSeconds: knobs.integer('MCP_INPUT_ROUND_TTL_SECONDS'),
    upstreamResilience: upstreamResilience(knobs),
    stdioCommands: stdioCommands(env),
    stdioMaxProcesses: knobs.integer('STDIO_MAX_PROCESSES'),
    stdioWarmProcesses: knobs.integer('STDIO_WARM_PROCESSES'),
    stdioIdleSeconds: knobs.integer('STDIO_IDLE_SECONDS'),
    allowedOrigins: [...new Set([new URL(publicUrl).origin, ...allowedOrigins])],
    allowedHosts: [
      ...new Set(
        [publicUrl, ...allowedOrigins].map((url) => new URL(url).host).concat(allowedHosts),
      ),
    ],
    mcpSessionTtlSeconds: knobs.integer('MCP_SESSION_TTL_SECONDS'),
    shutdownGraceSeconds: knobs.integer('SHUTDOWN_GRACE_SECONDS'),
    mcpPageSize: knobs.integer('MCP_PAGE_SIZE'),
    mcpToolSearch: { enabled: knobs.boolean('MCP_TOOL_SEARCH'), alwaysLoaded },
    embeddings: embeddings(env, knobs),
    redisUrl,
    redisNamespace,
    eventBus: eventBus(knobs),
    rateLimitStore: rateLimitStore(knobs),
    runMigrations: boolean(env, 'RUN_MIGRATIONS', true),
    logLevel,
    bodyLimitBytes: knobs.integer('BODY_LIMIT_BYTES'),
    jsonMaxDepth: knobs.integer('JSON_MAX_DEPTH'),
    upstreamMessageLimitBytes: knobs.integer('UPSTREAM_MESSAGE_LIMIT_BYTES'),
    metricsToken: metricsToken(env),
    trustedProxies: trustedProxies(env),
    oidc: oidc(env, knobs),
    clientMetadataDocuments: clientMetadataDocuments(env, knobs, publicUrl),
    audit: audit(knobs),
    mcpRegistry: mcpRegistry(env, knobs),
    logFormat: logFormat(env),
    configFile,
    settingWarnings: knobs.warnings,
    configPrune: boolean(env, 'CONFIG_PRUNE', false),
    configSecretsDir: resolve(value(env, 'CONFIG_SECRETS_DIR') ?? '/var/run/secrets'),
  };
}

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function host(env: Env): string | null {
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

function httpLimits(knobs: Knobs): HttpLimits {
  const headersTimeoutMs = knobs.integer('HTTP_HEADERS_TIMEOUT_MS');
  const requestTimeoutMs = knobs.integer('HTTP_REQUEST_TIMEOUT_MS');
  // Node refuses it the other way round: the headers are part of the request.
  if (requestTimeoutMs < headersTimeoutMs)
    fail(
      'HTTP_REQUEST_TIMEOUT_MS',
      `must not be shorter than HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
      String(requestTimeoutMs),
    );
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: knobs.integer('HTTP_MAX_CONNECTIONS'),
    maxStreamsPerPrincipal: knobs.integer('MCP_MAX_STREAMS_PER_PRINCIPAL'),
  };
}

function eventBus(knobs: Knobs): EventBusConfig {
  return {
    publishTimeoutMs: knobs.integer('EVENT_PUBLISH_TIMEOUT_MS'),
    queueMaxBytes: knobs.integer('EVENT_QUEUE_MAX_BYTES'),
    resyncWhileDownMs: 1000 * knobs.integer('EVENT_RESYNC_WHILE_DOWN_SECONDS'),
    redisCommandTimeoutMs: knobs.integer('REDIS_COMMAND_TIMEOUT_MS'),
    redisConnectTimeoutMs: knobs.integer('REDIS_CONNECT_TIMEOUT_MS'),
  };
}

function rateLimitStore(knobs: Knobs): RateLimitStoreConfig {
  return {
    timeoutMs: knobs.integer('RATE_LIMIT_TIMEOUT_MS'),
    failClosed: knobs.boolean('RATE_LIMIT_FAIL_CLOSED'),
    fallbackReplicas: knobs.integer('RATE_LIMIT_FALLBACK_REPLICAS'),
  };
}

function audit(knobs: Knobs): AuditConfig {
  const kept = knobs.choice<AuditArguments>('AUDIT_ARGUMENTS');
  return {
    arguments: kept,
    flushIntervalMs: knobs.integer('AUDIT_FLUSH_INTERVAL_MS'),
    retentionDays: knobs.integer('AUDIT_RETENTION_DAYS'),
  };
}

function upstreamResilience(knobs: Knobs): UpstreamResilienceConfig {
  return {
    failureThreshold: knobs.integer('UPSTREAM_BREAKER_FAILURES'),
    firstCooldownMs: knobs.integer('UPSTREAM_BREAKER_FIRST_COOLDOWN_MS'),
    cooldownMs: knobs.integer('UPSTREAM_BREAKER_COOLDOWN_MS'),
    maxConcurrent: knobs.integer('UPSTREAM_MAX_CONCURRENT'),
    maxQueue: knobs.integer('UPSTREAM_QUEUE'),
    queueTimeoutMs: knobs.integer('UPSTREAM_QUEUE_TIMEOUT_MS'),
    retry: {
      retries: knobs.integer('UPSTREAM_RETRIES'),
      backoffMs: knobs.integer('UPSTREAM_RETRY_BACKOFF_MS'),
    },
  };
}

function logFormat(env: Env): 'json' | 'pretty' {
  const raw = value(env, 'LOG_FORMAT');
  if (raw === undefined) return env.NODE_ENV === 'development' ? 'pretty' : 'json';
  if (raw !== 'json' && raw !== 'pretty') fail('LOG_FORMAT', 'must be json or pretty', raw);
  return raw;
}
