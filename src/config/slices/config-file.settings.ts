/** The configuration document applied at start-up. Injected by the modules that need it. */
export abstract class ConfigFileSettings {
  /** A configuration document applied at start-up, once per change (a ConfigMap); null: none. */
  abstract readonly configFile: string | null;
  /** Whether the start-up apply of CONFIG_FILE deletes what the file does not name. */
  abstract readonly configPrune: boolean;
  /** Where `fromFile` credential references may point (mounted Kubernetes secrets). */
  abstract readonly configSecretsDir: string;
  /** Old environment variables still read for the knobs, each with what to do instead. */
  abstract readonly settingWarnings: readonly string[];
}
