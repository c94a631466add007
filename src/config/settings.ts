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

/** The slices, each a Nest injection token. */
export const SETTINGS_SLICES = [
  AuditSettings,
  AuthSettings,
  ConfigFileSettings,
  DatabaseSettings,
  EmbeddingsSettings,
  EventSettings,
  McpSettings,
  ObservabilitySettings,
  RegistrySettings,
  SecretSettings,
  ServerSettings,
  UpstreamSettings,
] as const;
