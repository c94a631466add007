import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The directory holding package.json, from the sources (tests) or the build (dist/src/…). */
export function projectRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}

/** The renderer's sources: a page template and the script bundled into it. */
export function prefabRendererSources(root = projectRoot()) {
  const folder = join(root, 'src', 'mcp', 'apps', 'prefab', 'renderer');
  return { template: join(folder, 'index.html'), entry: join(folder, 'prefab-renderer.mts') };
}

/** The built renderer page, written by `npm run build` (and by the test set-up). */
export function prefabRendererFile(root = projectRoot()): string {
  return join(root, 'dist', 'prefab-renderer.html');
}

/** Where Portico writes a tool's settings into the built page, when it serves it. */
export const CONFIG_PLACEHOLDER = '<!--portico:config-->';
export const SCRIPT_PLACEHOLDER = '/*portico:script*/';
