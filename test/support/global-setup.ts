import { buildPrefabRenderer } from '../../src/mcp/apps/prefab/build-prefab-renderer';
import { BROWSER_MISSING, browserAvailable } from '../browser/support/browser-available';
import { KUBECTL_MISSING, kubectlAvailable } from '../deployment/kubectl-available';
import { OPENSSL_MISSING, opensslAvailable } from './openssl-available';
import { embeddedTemplates, postgresTemplate } from './database-templates';

/**
 * The app serves the built Prefab renderer page; tests run from sources, so build it first. Test
 * databases start as copies of one migrated template instead of running every migration (a test of
 * migrations, on the embedded database, as a copy of an empty one instead of running initdb): on the
 * embedded database a backup, which Portico processes on an in-memory one use in either run, and
 * on PostgreSQL a database of the server (the workers inherit the variables that name them).
 */
export default async function globalSetup(): Promise<void> {
  if (!browserAvailable) console.warn(`\n${BROWSER_MISSING}`);
  if (!kubectlAvailable) console.warn(`\n${KUBECTL_MISSING}`);
  if (!opensslAvailable) console.warn(`\n${OPENSSL_MISSING}`);
  await buildPrefabRenderer();
  const embedded = await embeddedTemplates();
  process.env.TEST_EMBEDDED_TEMPLATE = embedded.migrated;
  process.env.TEST_EMBEDDED_EMPTY = embedded.empty;
  const server = process.env.TEST_DATABASE_URL;
  if (server) process.env.TEST_POSTGRES_TEMPLATE = await postgresTemplate(server);
}
