import { join } from 'node:path';
import { build } from 'esbuild';

/** One browser script (and what it imports) as a single inline-able IIFE. */
export async function bundleScript(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [join(__dirname, '..', entry)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  const script = result.outputFiles[0]!.text;
  if (/<\/script/i.test(script)) throw new Error(`${entry} would end its script element`);
  return script;
}
