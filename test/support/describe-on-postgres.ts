import { onPostgres } from './test-database';

/** `describe` on PostgreSQL only, for what the embedded database cannot do (several processes). */
export const describeOnPostgres = onPostgres ? describe : describe.skip;

/**
 * `describe` on the embedded database only, for what never uses the run's database: the embedded
 * database itself (its engine, its backups), Portico in a process of its own on an in-memory
 * database, the command line, the conformance harness. It is the same whichever database the
 * other tests use, so a PostgreSQL run would only repeat it.
 */
export const describeEmbedded = onPostgres ? describe.skip : describe;

/**
 * As `describeEmbedded`, for the longest of such suites (the conformance harness, the embedded
 * database's own tests, the processes whose logs, traces and commands are tested): when CI runs
 * both runs side by side (TEST_SIDE_BY_SIDE), the PostgreSQL run, which has fewer files, runs them
 * instead, so that the two end closer together. Alone, either run runs them.
 */
export const describeOnce = process.env.TEST_SIDE_BY_SIDE && !onPostgres ? describe.skip : describe;
