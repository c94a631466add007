import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Inside node_modules, so that the compiled files find the packages as the sources do. */
const CACHE = join(ROOT, 'node_modules', '.cache');
const PREFIX = 'portico-test-build-';
/** The build this test process uses, once its sources were hashed. */
let built: string | undefined;

/** Every file under `folder`, depth first, sorted. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)],
    );
}

/** Test files (specs aside): what the conformance harness is made of. */
const TEST_SPEC = /\.(spec|e2e-spec|int-spec)\.ts$/;

/** What the build is made of: the sources, the migrations, test code and the compiler settings. */
function buildKey(): string {
  const hash = createHash('sha256');
  for (const file of [
    ...filesUnder(join(ROOT, 'src')),
    ...filesUnder(join(ROOT, 'migrations')),
    ...filesUnder(join(ROOT, 'test')).filter(
      (file) => !TEST_SPEC.test(file) && !file.includes('/artifacts/'),
    ),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'tsconfig.build.json'),
    join(ROOT, 'nest-cli.json'),
  ])
    hash.update(relative(ROOT, file)).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Compiles the sources as `npm run build` does, and the conformance harness
 * (`tsconfig.compiled.json`), without type checks (`npm run check` makes them), copying
 * nest-cli.json's assets. Written aside then renamed, so that runs side by side
 * never start half of it; a build of older sources is removed.
 */
function build(folder: string): void {
  mkdirSync(CACHE, { recursive: true });
  const aside = `${folder}.${process.pid}`;
  rmSync(aside, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join(__dirname, 'tsconfig.compiled.json'),
      '--noCheck',
      '--outDir',
      aside,
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const nest = JSON.parse(readFileSync(join(ROOT, 'nest-cli.json'), 'utf8')) as {
    compilerOptions: { assets: { include: string }[] };
  };
  for (const { include } of nest.compilerOptions.assets)
    copyFileSync(join(ROOT, 'src', include), join(aside, 'src', include));
  try {
    renameSync(aside, folder);
  } catch {
    // Another run made it first.
    rmSync(aside, { recursive: true, force: true });
  }
  for (const name of readdirSync(CACHE))
    if (name.startsWith(PREFIX) && !folder.endsWith(name) && !name.includes('.'))
      rmSync(join(CACHE, name), { recursive: true, force: true });
}

/**
 * The node arguments that run one of Portico's entry points (`src/main.ts`, `src/cli/portico.ts`)
 * or the conformance harness (`test/conformance/run-conformance.ts`) in a process of its own, as
 * `npm start` and the installed command do. Transpiling the sources at every start costs about
 * ten seconds for the app and three for the command, so they are compiled once per version of
 * the sources, the first time a test asks.
 */
export function entryArgs(source: string): string[] {
  // The sources are read and hashed once a test process, not at every start.
  built ??= join(CACHE, PREFIX + buildKey());
  if (!existsSync(built)) build(built);
  return [join(built, source.replace(/\.ts$/, '.js'))];
}
