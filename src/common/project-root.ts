import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout or image root: the nearest folder up from `from` that has package.json. */
export function projectRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}
