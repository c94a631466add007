/** A bad setting; main prints `message` as one line and exits. */
export class ConfigError extends Error {}
