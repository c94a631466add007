import { AuditSettings } from './slices/audit.settings';
import { AuthSettings } from './slices/auth.settings';
import { ConfigFileSettings } from './slices/config-file.settings';
import { DatabaseSettings } from './slices/database.settings';
import { EmbeddingsSettings } from './slices/embeddings.settings';
import { EventSettings } from './slices/events.settings';
import { McpSettings } from './slices/mcp.settings';
import { ObservabilitySettings } from './slices/observability.settings';
import { RegistrySettings } from './slices/registry.settings';
import { SecretSettings } from './slices/secrets.settings';
import { ServerSettings } from './slices/server.settings';
import { UpstreamSettings } from './slices/upstream.settings';

/**
 * Every setting together, as the loader returns it and the bootstrap hands it to ConfigModule;
 * modules inject only their own slice.
 */
export type Settings = AuditSettings &
  AuthSettings &
  ConfigFileSettings &
  DatabaseSettings &
  EmbeddingsSettings &
  EventSettings &
  McpSettings &
  ObservabilitySettings &
  RegistrySettings &
  SecretSettings &
  ServerSettings &
  UpstreamSettings;

/** A slice's fields, checked against its class: a field it does not have is a type error. */
function fields<S>() {
  return <const F extends readonly (keyof S & string)[]>(...names: F): F => names;
}

/**
 * The slices, each a Nest injection token, with the fields each one is given: a module holding
 * one slice holds only its values, not every setting.
 */
export const SETTINGS_SLICES = new Map<abstract new () => unknown, readonly string[]>([
  [AuditSettings, fields<AuditSettings>()('audit')],
  [
    AuthSettings,
    fields<AuthSettings>()(
      'adminUsername',
      'adminPassword',
      'passwordHashing',
      'tokenTtlSeconds',
      'authCacheTtlSeconds',
      'maxApiTokensPerUser',
      'oidc',
      'clientMetadataDocuments',
    ),
  ],
  [
    ConfigFileSettings,
    fields<ConfigFileSettings>()(
      'configFile',
      'configPrune',
      'configSecretsDir',
      'settingWarnings',
    ),
  ],
  [
    DatabaseSettings,
    fields<DatabaseSettings>()('database', 'databaseTimeouts', 'dataDir', 'runMigrations'),
  ],
  [EmbeddingsSettings, fields<EmbeddingsSettings>()('embeddings')],
  [
    EventSettings,
    fields<EventSettings>()('redisUrl', 'redisNamespace', 'eventBus', 'rateLimitStore'),
  ],
  [
    McpSettings,
    fields<McpSettings>()(
      'toolNameSeparator',
      'mcpSessionTtlSeconds',
      'mcpMaxSessionsPerPrincipal',
      'mcpPageSize',
      'mcpToolSearch',
    ),
  ],
  [ObservabilitySettings, fields<ObservabilitySettings>()('logLevel', 'logFormat', 'metricsToken')],
  [RegistrySettings, fields<RegistrySettings>()('mcpRegistry')],
  [SecretSettings, fields<SecretSettings>()('jwtSecret', 'encryptionKey')],
  [
    ServerSettings,
    fields<ServerSettings>()(
      'port',
      'host',
      'publicUrl',
      'httpLimits',
      'allowedOrigins',
      'allowedHosts',
      'trustedProxies',
      'bodyLimitBytes',
      'jsonMaxDepth',
      'shutdownGraceSeconds',
    ),
  ],
  [
    UpstreamSettings,
    fields<UpstreamSettings>()(
      'upstreamTimeoutMs',
      'upstreamCallMaxMs',
      'upstreamEraTtlSeconds',
      'inputRoundTtlSeconds',
      'upstreamResilience',
      'upstreamMessageLimitBytes',
      'stdioCommands',
      'stdioMaxProcesses',
      'stdioWarmProcesses',
      'stdioIdleSeconds',
      'syncIntervalSeconds',
      'oauthRefreshSeconds',
      'syncChangeWaitMs',
    ),
  ],
]);

/** The part of `settings` that one slice holds. */
export function sliceOf(settings: Settings, names: readonly string[]): object {
  return Object.fromEntries(
    names.map((name) => [name, (settings as unknown as Record<string, unknown>)[name]]),
  );
}
