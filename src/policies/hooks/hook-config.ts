/** One hook of a server, as stored and as the API takes it. */
export interface HookConfig {
  /** A name from the hook registry. */
  name: string;
  /** The hook's own settings, checked by the hook when the server is saved. */
  config?: Record<string, unknown>;
}
