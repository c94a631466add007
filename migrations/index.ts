import { Init1795312241825 } from './1795312241825-Init';
import { McpSessions1795313067731 } from './1795313067731-McpSessions';
import { LoginAttempts1795325639193 } from './1795325639193-LoginAttempts';
import { Identity1795457658663 } from './1795457658663-Identity';
import { ToolTextSearch1795323626806 } from './1795323626806-ToolTextSearch';

/** Every migration, oldest first; the app and the migration job both run this list. */
export const MIGRATIONS = [
  Init1795312241825,
  McpSessions1795313067731,
  ToolTextSearch1795323626806,
  LoginAttempts1795325639193,
  Identity1795457658663,
];
