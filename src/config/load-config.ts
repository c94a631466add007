import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parametersOfCost } from '../common/scrypt-parameters';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import {
  database,
  encryptionKey,
  host,
  logFormat,
  metricsToken,
  persistedSecret,
  stdioCommands,
  trustedProxies,
} from './deployment-values';
import { boolean, type Env, fail, httpUrl, integer, value } from './env-values';
import { clientMetadataDocuments, embeddings, mcpRegistry, oidc } from './service-values';
import { Knobs, readDocumentSettings } from './settings/knobs';
import { type AuditArguments, type AuditConfig } from './slices/audit.settings';
import { type EventBusConfig, type RateLimitStoreConfig } from './slices/events.settings';
import { type LogLevel } from './slices/observability.settings';
import { type HttpLimits } from './slices/server.settings';
import { type UpstreamResilienceConfig } from './slices/upstream.settings';
import { type Settings } from './settings';

export { ConfigError } from './settings/config-error';

const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];
const SEPARATOR_RULE = /^[A-Za-z0-9_.-]{1,8}$/;

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
    oauthRefreshSeconds: knobs.integer('OAUTH_REFRESH_SWEEP_SECONDS'),
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

function httpLimits(knobs: Knobs): HttpLimits {
  const headersTimeoutMs = knobs.integer('HTTP_HEADERS_TIMEOUT_MS');
  const requestTimeoutMs = knobs.integer('HTTP_REQUEST_TIMEOUT_MS');
  // Node refuses it the other way round: the headers are part of the request.
  if (requestTimeoutMs < headersTimeoutMs)
    fail(
      'settings.http.requestTimeoutMs (HTTP_REQUEST_TIMEOUT_MS)',
      `must not be shorter than settings.http.headersTimeoutMs (${headersTimeoutMs})`,
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
