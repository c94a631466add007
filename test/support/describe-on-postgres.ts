import { onPostgres } from './test-database';

/** `describe` on PostgreSQL only, for what the embedded database cannot do (several processes). */
export const describeOnPostgres = onPostgres ? describe : describe.skip;

/**
 * `describe` on the embedded database only, for what never uses the run's database: the embedded
 * database itself (its engine, its backups), Portico in a process of its own on an in-memory
 * database, the command line. It is the same whichever database the other tests use, so a
 * PostgreSQL run would only repeat it.
 */
export const describeEmbedded = onPostgres ? describe.skip : describe;
