import { buildPrefabRenderer } from '../../src/mcp/apps/prefab/build-prefab-renderer';
import { BROWSER_MISSING, browserAvailable } from '../browser/support/browser-available';
import { KUBECTL_MISSING, kubectlAvailable } from '../deployment/kubectl-available';
import { OPENSSL_MISSING, opensslAvailable } from './openssl-available';
import { embeddedTemplate } from './embedded-template';

/**
 * The app serves the built Prefab renderer page; tests run from sources, so build it first. Test
 * apps on the embedded database, and Portico processes on an in-memory one in either run, start from
 * one migrated template (the workers inherit the variable that names it).
 */
export default async function globalSetup(): Promise<void> {
  if (!browserAvailable) console.warn(`\n${BROWSER_MISSING}`);
  if (!kubectlAvailable) console.warn(`\n${KUBECTL_MISSING}`);
  if (!opensslAvailable) console.warn(`\n${OPENSSL_MISSING}`);
  await buildPrefabRenderer();
  process.env.TEST_EMBEDDED_TEMPLATE = await embeddedTemplate();
}
