import { join } from 'node:path';
import { projectRoot } from '../../../common/project-root';

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
