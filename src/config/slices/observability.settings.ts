export type LogLevel = 'error' | 'warn' | 'log' | 'debug' | 'verbose';

/** Logs and the metrics endpoint. Injected by the modules that need it. */
export abstract class ObservabilitySettings {
  abstract readonly logLevel: LogLevel;
  /** JSON log lines (production) or readable ones (development). */
  abstract readonly logFormat: 'json' | 'pretty';
  /** A static bearer token for Prometheus scrapes of /metrics; null: admin tokens only. */
  abstract readonly metricsToken: string | null;
}
