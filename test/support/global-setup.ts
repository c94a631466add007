import { buildPrefabRenderer } from '../../src/mcp/apps/prefab/build-prefab-renderer';

/** The app serves the built Prefab renderer page; tests run from sources, so build it first. */
export default async function globalSetup(): Promise<void> {
  await buildPrefabRenderer();
}
