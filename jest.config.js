/**
 * With TEST_DATABASE_URL the run is the PostgreSQL one. A `.spec.ts` touches no database (the
 * unit specs beside the code; in test/ the specs of fixtures, manifests and reports), so those
 * run once, in the PGlite run; the PostgreSQL run takes the integration and end-to-end files.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * When CI runs both side by side (TEST_SIDE_BY_SIDE), files that would run alike in either run go
 * to one of them, split so that the two end together; alone, either run runs them all. Each does
 * the same whatever the run's database: the conformance harness, the embedded database's own
 * tests, and Portico in a process of its own (its logs, traces, `portico upstream` and its
 * fetching of client metadata documents) never use it; the browser suites test what Chromium does
 * with the admin pages and MCP Apps, whose server side the end-to-end files test on both databases.
 */
const ONCE = {
  postgres: [
    'test/conformance/conformance.e2e-spec.ts',
    'test/conformance/client-conformance.e2e-spec.ts',
    'test/conformance/extension-conformance.e2e-spec.ts',
    'test/integration/embedded-upkeep.int-spec.ts',
    'test/e2e/upstream-command.e2e-spec.ts',
    'test/e2e/tracing.e2e-spec.ts',
    'test/e2e/logs.e2e-spec.ts',
    'test/e2e/oauth-client-metadata.e2e-spec.ts',
    'test/browser/admin-playground.e2e-spec.ts',
    'test/browser/mcp-apps.e2e-spec.ts',
    'test/browser/admin-sso.e2e-spec.ts',
    'test/browser/admin-policies.e2e-spec.ts',
    'test/browser/admin-picker.e2e-spec.ts',
  ],
  embedded: [
    'test/integration/embedded-postgres.int-spec.ts',
    'test/browser/admin-flow.e2e-spec.ts',
    'test/browser/admin-stdio.e2e-spec.ts',
    'test/browser/admin-members.e2e-spec.ts',
    'test/browser/admin-consolidated-tools.e2e-spec.ts',
  ],
};
const elsewhere = process.env.TEST_SIDE_BY_SIDE ? ONCE[onPostgres ? 'embedded' : 'postgres'] : [];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/support/test-environment.ts',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: onPostgres ? '\\.(e2e-spec|int-spec)\\.ts$' : '\\.(spec|e2e-spec|int-spec)\\.ts$',
  testPathIgnorePatterns: ['/node_modules/', ...elsewhere.map((file) => `<rootDir>/${file}`)],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  // Jest's runtime, except that only modules that can call import() get Node's import() callback,
  // which Node keeps for the life of the process: with it on every module each file's module graph
  // stayed alive after the file (60-90 MB). See the file.
  runtime: '<rootDir>/test/support/jest-runtime.js',
  // What a file still leaves behind (25-70 MB after an end-to-end file, through a path not found
  // yet) is dropped with the worker once its heap passes 500 MB.
  workerIdleMemoryLimit: '500MB',
  forceExit: false,
};
