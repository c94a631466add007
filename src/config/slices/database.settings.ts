/**
 * The embedded database keeps its files in `dataDir`, or in memory when that is null; an in-memory
 * one may start as a copy of a backup (`from`, the path of a `portico backup` file).
 */
export type DatabaseConfig =
  { mode: 'embedded'; dataDir: string | null; from?: string } | { mode: 'postgres'; url: string };

/** The database, the bounds on its round trips, and where embedded data lives. Injected by the modules that need it. */
export abstract class DatabaseSettings {
  abstract readonly database: DatabaseConfig;
  /** Bounds on every database round trip: DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS. */
  abstract readonly databaseTimeouts: { connectMs: number; queryMs: number };
  abstract readonly dataDir: string;
  abstract readonly runMigrations: boolean;
}
