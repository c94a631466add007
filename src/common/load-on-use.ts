/**
 * Loads a module when a command runs rather than when the CLI starts, so that `portico health`
 * does not pay for Nest, TypeORM and PGlite. `file` comes from the caller's `require.resolve`.
 */
export function loadOnUse<T>(file: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as T;
}
