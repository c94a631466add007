/**
 * With TEST_DATABASE_URL the run is the PostgreSQL one: the unit specs beside the code touch no
 * database (what does lives in test/), so they run once, in the PGlite run, not again here.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/support/test-environment.ts',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec|int-spec)\\.ts$',
  testPathIgnorePatterns: ['/node_modules/', ...(onPostgres ? ['<rootDir>/src/'] : [])],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  workerIdleMemoryLimit: '1GB',
  forceExit: false,
};
