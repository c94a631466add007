import { onPostgres } from './test-database';

/** `describe` on PostgreSQL only, for what the embedded database cannot do (several processes). */
export const describeOnPostgres = onPostgres ? describe : describe.skip;
