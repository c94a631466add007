import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Profiler } from 'node:inspector';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import {
  classOf,
  countFiles,
  formatTable,
  type FunctionRun,
  functionsRun,
  labelOf,
  onEveryCall,
  overBudget,
  sourceLines,
} from '../../scripts/call-path-report';
import { tempDataDir } from '../support/temp-dir';

/**
 * A small project run by a real Node: modules loaded and warmed before precise coverage starts,
 * then one measured window, as `npm run call-path` measures a call. Prints V8's coverage.
 */
const PROJECT: Record<string, string> = {
  'src/handlers.js': `
const helper = (value) => value + 1;
exports.register = function register(server) {
  server.on('request', (request) => helper(request));
};
exports.unused = function unused() {
  return 0;
};
`,
  'src/warm-only.js': `exports.warm = function warm() { return 1; };`,
  'src/late.js': `exports.late = () => 2;`,
  'lib/outside.js': `exports.outside = function outside() { return 3; };`,
  'run.js': `
const { Session } = require('node:inspector/promises');
const { EventEmitter } = require('node:events');
const server = new EventEmitter();
require('./src/handlers').register(server);
const { warm } = require('./src/warm-only');
const { outside } = require('./lib/outside');
for (let i = 0; i < 10000; i++) { server.emit('request', i); warm(); outside(); }
(async () => {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  server.emit('request', 1);
  outside();
  require('./src/late');
  const { result } = await session.post('Profiler.takePreciseCoverage');
  session.disconnect();
  process.stdout.write(JSON.stringify(result));
})();
`,
};

describe('call path report', () => {
  let root: string;
  let coverage: Profiler.ScriptCoverage[];

  beforeAll(() => {
    root = tempDataDir();
    for (const [file, code] of Object.entries(PROJECT)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), code);
    }
    coverage = JSON.parse(
      execFileSync(process.execPath, [join(root, 'run.js')], { encoding: 'utf8' }),
    ) as Profiler.ScriptCoverage[];
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const labelled = (runs: FunctionRun[]) =>
    runs.map((run) => `${run.file}: ${labelOf(run, sourceLines(PROJECT[run.file]!)(run.offset))}`);

  it('counts what ran in the window, anonymous functions and a module loaded in it included', () => {
    expect(labelled(functionsRun(coverage, root)).sort()).toEqual([
      'src/handlers.js: (anonymous, line 4)',
      'src/handlers.js: helper',
      'src/late.js: (module body)',
    ]);
  });

  it('leaves out what ran before the window only, and files outside src', () => {
    const files = functionsRun(coverage, root).map((run) => run.file);
    expect(files).not.toContain('src/warm-only.js');
    expect(files).not.toContain('lib/outside.js');
    expect(coverage.some((script) => script.url.endsWith('/lib/outside.js'))).toBe(true);
  });

  it('finds a function’s line in the TypeScript source through the inline source map', () => {
    const source = [
      'import { type Server } from "node:http";',
      '',
      'interface Options {',
      '  quiet: boolean;',
      '}',
      '',
      'export function listen(server: Server, options: Options): void {',
      '  server.on("request", (request) => void options.quiet && request);',
      '}',
    ].join('\n');
    const code = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        inlineSourceMap: true,
      },
      fileName: 'listen.ts',
    }).outputText;
    const lineOf = sourceLines(code);
    expect(lineOf(code.indexOf('function listen'))).toBe(7);
    expect(lineOf(code.indexOf('(request) =>'))).toBe(8);
  });

  it('keeps the functions that ran in every measured call apart from the others', () => {
    const run = (offset: number): FunctionRun => ({
      file: 'src/a.ts',
      scriptId: '7',
      name: `f${offset}`,
      offset,
      moduleBody: false,
    });
    const { every, some } = onEveryCall([
      [run(1), run(2), run(3)],
      [run(1), run(3)],
      [run(3), run(1)],
    ]);
    expect(every.map((fn) => fn.name).sort()).toEqual(['f1', 'f3']);
    expect(some.map((fn) => fn.name)).toEqual(['f2']);
  });

  it('classifies files, matching the pure leaves by base name wherever they move', () => {
    expect(classOf('src/upstream/resilience/circuit-breaker.ts')).toBe('pureLeaf');
    expect(classOf('src/mcp/core/leaves/circuit-breaker.ts')).toBe('pureLeaf');
    expect(classOf('src/upstream/modern/mcp-param-headers.ts')).toBe('pureLeaf');
    expect(classOf('src/upstream/transport/http-channel.ts')).toBe('knowsMcp');
    expect(classOf('src/mcp/core/tool-calls.ts')).toBe('knowsMcp');
    expect(classOf('src/auth/mcp-access.ts')).toBe('elsewhere');
    expect(
      countFiles([
        'src/mcp/core/tool-calls.ts',
        'src/upstream/transport/sse-reader.ts',
        'src/upstream/transport/sse-reader.ts',
        'src/audit/mcp-audit.ts',
      ]),
    ).toEqual({ all: 3, mcpAndUpstream: 2, knowsMcp: 1 });
  });

  it('says which budget a combination is over and by how much', () => {
    const counts = { all: 36, mcpAndUpstream: 18, knowsMcp: 12 };
    expect(overBudget({ client: '2026-07-28', upstream: '2026-07-28' }, counts)).toEqual([
      '2026-07-28 client → 2026-07-28 upstream: 36 source files, 1 over the budget of 35',
      '2026-07-28 client → 2026-07-28 upstream: 12 files that know MCP, 2 over the budget of 10',
    ]);
    expect(overBudget({ client: '2025', upstream: '2025' }, counts)).toEqual([]);
    expect(overBudget({ client: '2025', upstream: '2025' }, { ...counts, knowsMcp: 15 })).toEqual([
      '2025 client → 2025 upstream: 15 files that know MCP, 1 over the budget of 14',
    ]);
    expect(overBudget({ client: '2025', upstream: '2026-07-28' }, { ...counts, all: 99 })).toEqual(
      [],
    );
  });

  it('tabulates the combinations with their budgets', () => {
    const table = formatTable([
      {
        combination: { client: '2026-07-28', upstream: '2026-07-28' },
        counts: { all: 30, mcpAndUpstream: 15, knowsMcp: 9 },
      },
      {
        combination: { client: '2026-07-28', upstream: '2025' },
        counts: { all: 31, mcpAndUpstream: 16, knowsMcp: 11 },
      },
    ]).split('\n');
    expect(table[1]).toMatch(/^2026-07-28 +2026-07-28 +30 \/ 35 +15 \/ 18 +9 \/ 10$/);
    expect(table[2]).toMatch(/^2026-07-28 +2025 +31 +16 +11$/);
  });
});
