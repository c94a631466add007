import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { build, type Plugin } from 'esbuild';
import {
  CONFIG_PLACEHOLDER,
  prefabRendererFile,
  prefabRendererSources,
  SCRIPT_PLACEHOLDER,
} from './prefab-renderer.paths';

/**
 * zod, which the MCP SDK validates messages with, re-exports every locale it has (a third of the
 * bundle); the renderer only ever needs English messages.
 */
const englishOnlyZod: Plugin = {
  name: 'english-only-zod',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: require.resolve('zod/v4/locales/en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * Bundles the Prefab renderer (its script and `@modelcontextprotocol/ext-apps`) into one
 * self-contained page: a UI resource is a single HTML document, and no CDN is needed.
 */
export async function buildPrefabRenderer(output = prefabRendererFile()): Promise<string> {
  const sources = prefabRendererSources();
  const [template, bundle] = await Promise.all([
    readFile(sources.template, 'utf8'),
    build({
      entryPoints: [sources.entry],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      legalComments: 'none',
      write: false,
      logLevel: 'silent',
      plugins: [englishOnlyZod],
    }),
  ]);
  const script = bundle.outputFiles[0]!.text;
  if (/<\/script/i.test(script))
    throw new Error('The renderer bundle would end its script element');
  if (!template.includes(CONFIG_PLACEHOLDER) || !template.includes(SCRIPT_PLACEHOLDER)) {
    throw new Error(`${sources.template} lacks a placeholder`);
  }
  const page = template.replace(SCRIPT_PLACEHOLDER, () => script);
  await mkdir(dirname(output), { recursive: true });
  // Written aside and renamed: a reader (another test run, a starting replica) never sees half a page.
  const partial = `${output}.${process.pid}.partial`;
  await writeFile(partial, page);
  await rename(partial, output);
  return output;
}

if (require.main === module) {
  buildPrefabRenderer().then(
    (output) => process.stdout.write(`Prefab renderer: ${output}\n`),
    (error: unknown) => {
      process.stderr.write(`Could not build the Prefab renderer: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
