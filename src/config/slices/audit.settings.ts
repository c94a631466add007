/** How much of a call's arguments the audit trail keeps. */
export type AuditArguments = 'none' | 'digest' | 'full';

/** The audit trail: what it keeps, how often it writes, how long it keeps it. */
export interface AuditConfig {
  arguments: AuditArguments;
  /** How often the buffered entries are written; a crash loses at most this much. */
  flushIntervalMs: number;
  /** Entries older than this many days are deleted; 0 keeps them for ever. */
  retentionDays: number;
}

/** The audit trail. Injected by the modules that need it. */
export abstract class AuditSettings {
  abstract readonly audit: AuditConfig;
}
