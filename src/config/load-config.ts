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

  const alwaysLoaded = knobs.names('mcp.toolSearchAlwaysLoaded');
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
      connectMs: knobs.integer('database.connectTimeoutMs'),
      queryMs: knobs.integer('database.queryTimeoutMs'),
    },
    authCacheTtlSeconds: knobs.integer('auth.cacheTtlSeconds'),
    maxApiTokensPerUser: knobs.integer('auth.maxApiTokensPerUser'),
    dataDir,
    toolNameSeparator: separator,
    adminUsername,
    adminPassword,
    passwordHashing: parametersOfCost(knobs.integer('auth.passwordHashCost')),
    jwtSecret: persistedSecret(env, 'JWT_SECRET', dataDir, () =>
      randomBytes(48).toString('base64url'),
    ),
    tokenTtlSeconds: knobs.integer('auth.tokenTtlSeconds'),
    encryptionKey: encryptionKey(
      persistedSecret(env, 'ENCRYPTION_KEY', dataDir, () => randomBytes(32).toString('hex')),
    ),
    syncIntervalSeconds: knobs.integer('sync.intervalSeconds'),
    oauthRefreshSeconds: knobs.integer('sync.oauthRefreshSeconds'),
    syncChangeWaitMs: knobs.integer('sync.changeWaitMs'),
    upstreamTimeoutMs: knobs.integer('upstream.timeoutMs'),
    upstreamCallMaxMs: knobs.integer('upstream.callMaxMs'),
    upstreamEraTtlSeconds: knobs.integer('upstream.eraTtlSeconds'),
    inputRoundTtlSeconds: knobs.integer('mcp.inputRoundTtlSeconds'),
    upstreamResilience: upstreamResilience(knobs),
    stdioCommands: stdioCommands(env),
    stdioMaxProcesses: knobs.integer('stdio.maxProcesses'),
    stdioWarmProcesses: knobs.integer('stdio.warmProcesses'),
    stdioIdleSeconds: knobs.integer('stdio.idleSeconds'),
    allowedOrigins: [...new Set([new URL(publicUrl).origin, ...allowedOrigins])],
    allowedHosts: [
      ...new Set(
        [publicUrl, ...allowedOrigins].map((url) => new URL(url).host).concat(allowedHosts),
      ),
    ],
    mcpSessionTtlSeconds: knobs.integer('mcp.sessionTtlSeconds'),
    mcpMaxSessionsPerPrincipal: knobs.integer('mcp.maxSessionsPerPrincipal'),
    shutdownGraceSeconds: knobs.integer('http.shutdownGraceSeconds'),
    mcpPageSize: knobs.integer('mcp.pageSize'),
    mcpToolSearch: { enabled: knobs.boolean('mcp.toolSearch'), alwaysLoaded },
    embeddings: embeddings(env, knobs),
    redisUrl,
    redisNamespace,
    eventBus: eventBus(knobs),
    rateLimitStore: rateLimitStore(knobs),
    runMigrations: boolean(env, 'RUN_MIGRATIONS', true),
    logLevel,
    bodyLimitBytes: knobs.integer('http.bodyLimitBytes'),
    jsonMaxDepth: knobs.integer('http.jsonMaxDepth'),
    upstreamMessageLimitBytes: knobs.integer('upstream.messageLimitBytes'),
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
  const headersTimeoutMs = knobs.integer('http.headersTimeoutMs');
  const requestTimeoutMs = knobs.integer('http.requestTimeoutMs');
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
    maxConnections: knobs.integer('http.maxConnections'),
    maxStreamsPerPrincipal: knobs.integer('mcp.maxStreamsPerPrincipal'),
  };
}

function eventBus(knobs: Knobs): EventBusConfig {
  return {
    publishTimeoutMs: knobs.integer('events.publishTimeoutMs'),
    queueMaxBytes: knobs.integer('events.queueMaxBytes'),
    resyncWhileDownMs: 1000 * knobs.integer('events.resyncWhileDownSeconds'),
    redisCommandTimeoutMs: knobs.integer('events.redisCommandTimeoutMs'),
    redisConnectTimeoutMs: knobs.integer('events.redisConnectTimeoutMs'),
  };
}

function rateLimitStore(knobs: Knobs): RateLimitStoreConfig {
  return {
    timeoutMs: knobs.integer('rateLimitStore.timeoutMs'),
    failClosed: knobs.boolean('rateLimitStore.failClosed'),
    fallbackReplicas: knobs.integer('rateLimitStore.fallbackReplicas'),
  };
}

function audit(knobs: Knobs): AuditConfig {
  const kept = knobs.choice<AuditArguments>('audit.arguments');
  return {
    arguments: kept,
    flushIntervalMs: knobs.integer('audit.flushIntervalMs'),
    retentionDays: knobs.integer('audit.retentionDays'),
  };
}

function upstreamResilience(knobs: Knobs): UpstreamResilienceConfig {
  return {
    failureThreshold: knobs.integer('upstream.breakerFailures'),
    firstCooldownMs: knobs.integer('upstream.breakerFirstCooldownMs'),
    cooldownMs: knobs.integer('upstream.breakerCooldownMs'),
    maxConcurrent: knobs.integer('upstream.maxConcurrent'),
    maxQueue: knobs.integer('upstream.queue'),
    queueTimeoutMs: knobs.integer('upstream.queueTimeoutMs'),
    retry: {
      retries: knobs.integer('upstream.retries'),
      backoffMs: knobs.integer('upstream.retryBackoffMs'),
    },
  };
}
