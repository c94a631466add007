import { type Profiler } from 'node:inspector';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

// The pure half of `npm run call-path`: which functions of `src/` V8 counted a call of, how the
// files they live in are classified, and whether a combination of eras keeps to its budget.

/** A function V8 counted at least one call of, in a file of `src/`. */
export interface FunctionRun {
  /** Relative to the project, e.g. `src/app.factory.ts`. */
  file: string;
  scriptId: string;
  /** V8's name: empty for anonymous functions and for the module body. */
  name: string;
  /** Where the function starts in the code V8 ran (for ts-node, the transpiled file). */
  offset: number;
  moduleBody: boolean;
}

/**
 * Every function of a file under `src/` whose call count is above zero, anonymous ones and the
 * module body included. With `callCount: true, detailed: false` a function's first range holds
 * its calls since the last `takePreciseCoverage`: a script none of whose functions ran in that
 * window is left out by V8, and a module body counts only when its file was loaded in the window.
 */
export function functionsRun(
  coverage: readonly Profiler.ScriptCoverage[],
  projectRoot: string,
): FunctionRun[] {
  const prefix = `${pathToFileURL(projectRoot).href}/`;
  const runs: FunctionRun[] = [];
  for (const script of coverage) {
    if (!script.url.startsWith(`${prefix}src/`)) continue;
    const file = decodeURIComponent(script.url.slice(prefix.length));
    for (const fn of script.functions) {
      const range = fn.ranges[0];
      if (!range || range.count === 0) continue;
      runs.push({
        file,
        scriptId: script.scriptId,
        name: fn.functionName,
        offset: range.startOffset,
        moduleBody: fn.functionName === '' && range.startOffset === 0,
      });
    }
  }
  return runs;
}

/**
 * The functions that ran in every one of several measured calls, and those that ran in some
 * only (a timer, a cache refreshed now and then): the budgets count the first.
 */
export function onEveryCall(calls: readonly FunctionRun[][]): {
  every: FunctionRun[];
  some: FunctionRun[];
} {
  const key = (run: FunctionRun) => `${run.scriptId}:${run.offset}`;
  const seen = new Map<string, { run: FunctionRun; calls: number }>();
  for (const runs of calls)
    for (const run of new Map(runs.map((run) => [key(run), run])).values()) {
      const entry = seen.get(key(run)) ?? { run, calls: 0 };
      entry.calls++;
      seen.set(key(run), entry);
    }
  const entries = [...seen.values()];
  return {
    every: entries.filter((entry) => entry.calls === calls.length).map((entry) => entry.run),
    some: entries.filter((entry) => entry.calls < calls.length).map((entry) => entry.run),
  };
}

/**
 * Finds a function's line in its own source file from an offset in the code V8 ran, through the
 * inline source map ts-node appends; a file without one is its own source.
 */
export function sourceLines(code: string): (offset: number) => number | undefined {
  const inline = /\/\/# sourceMappingURL=data:application\/json;(?:[^,;]*;)*base64,(\S+)\s*$/.exec(
    code,
  );
  const map = inline
    ? new SourceMap(
        JSON.parse(Buffer.from(inline[1]!, 'base64').toString('utf8')) as SourceMapPayload,
      )
    : null;
  return (offset) => {
    const before = code.slice(0, offset);
    const line = before.split('\n').length - 1;
    const column = offset - (before.lastIndexOf('\n') + 1);
    if (!map) return line + 1;
    const entry = map.findEntry(line, column);
    return 'originalLine' in entry ? entry.originalLine + 1 : undefined;
  };
}

export function labelOf(run: FunctionRun, line: number | undefined): string {
  if (run.moduleBody) return '(module body)';
  if (run.name !== '') return run.name;
  return line === undefined ? '(anonymous)' : `(anonymous, line ${line})`;
}

/** The MCP layers: the endpoint, its core and the 2025 adapter, and the upstream client. */
export const MCP_FOLDERS = ['src/mcp/', 'src/upstream/'] as const;

/**
 * Files of those folders that know nothing of MCP, named in the issue "one core for both eras":
 * breaker, limiter, retry, timer, SSE reader, message bounds, header params. Matched by base
 * name, so that they still match when the rebuild moves them to other folders.
 */
export const PURE_LEAVES = [
  'circuit-breaker',
  'concurrency-limiter',
  'upstream-retry',
  'call-timer',
  'sse-reader',
  'message-bounds',
  'mcp-param-headers',
] as const;

export type FileClass = 'knowsMcp' | 'pureLeaf' | 'elsewhere';

export function classOf(file: string): FileClass {
  if (!MCP_FOLDERS.some((folder) => file.startsWith(folder))) return 'elsewhere';
  return (PURE_LEAVES as readonly string[]).includes(basename(file, '.ts'))
    ? 'pureLeaf'
    : 'knowsMcp';
}

export interface CallPathCounts {
  /** Source files with a function that ran. */
  all: number;
  /** Of those, the files under `src/mcp` and `src/upstream`, pure leaves included. */
  mcpAndUpstream: number;
  /** The files under `src/mcp` and `src/upstream` but the pure leaves: files that know MCP. */
  knowsMcp: number;
}

export const COUNT_NAMES: Record<keyof CallPathCounts, string> = {
  all: 'source files',
  mcpAndUpstream: 'files of src/mcp + src/upstream',
  knowsMcp: 'files that know MCP',
};

export function countFiles(files: Iterable<string>): CallPathCounts {
  const classes = [...new Set(files)].map(classOf);
  return {
    all: classes.length,
    mcpAndUpstream: classes.filter((kind) => kind !== 'elsewhere').length,
    knowsMcp: classes.filter((kind) => kind === 'knowsMcp').length,
  };
}

/** "2025" is a session client or upstream (2025-11-25); "2026-07-28" the stateless revision. */
export type Era = '2025' | '2026-07-28';

export interface Combination {
  client: Era;
  upstream: Era;
}

export type Budget = Partial<CallPathCounts>;

/**
 * Budgets from the issue "one core for both eras" (DESIGN §5: a 2026-07-28 `tools/call` passes
 * through at most 10 files that know MCP). The two combinations that translate between eras
 * have none.
 */
export const MODERN_BUDGET: Budget = { knowsMcp: 10, mcpAndUpstream: 18, all: 35 };
export const SESSION_BUDGET: Budget = { knowsMcp: 14 };

export function budgetOf({ client, upstream }: Combination): Budget {
  if (client !== upstream) return {};
  return client === '2026-07-28' ? MODERN_BUDGET : SESSION_BUDGET;
}

export function describeCombination({ client, upstream }: Combination): string {
  return `${client} client → ${upstream} upstream`;
}

const COUNT_KEYS = Object.keys(COUNT_NAMES) as (keyof CallPathCounts)[];

/** One line per count over its budget, saying by how much. */
export function overBudget(combination: Combination, counts: CallPathCounts): string[] {
  const budget = budgetOf(combination);
  return COUNT_KEYS.flatMap((key) => {
    const limit = budget[key];
    if (limit === undefined || counts[key] <= limit) return [];
    return [
      `${describeCombination(combination)}: ${counts[key]} ${COUNT_NAMES[key]}, ` +
        `${counts[key] - limit} over the budget of ${limit}`,
    ];
  });
}

/** The combinations' counts, each as `count / budget` where a budget applies. */
export function formatTable(
  rows: readonly { combination: Combination; counts: CallPathCounts }[],
): string {
  const header = ['client', 'upstream', ...COUNT_KEYS.map((key) => COUNT_NAMES[key])];
  const cells = rows.map(({ combination, counts }) => {
    const budget = budgetOf(combination);
    return [
      combination.client,
      combination.upstream,
      ...COUNT_KEYS.map((key) =>
        budget[key] === undefined ? String(counts[key]) : `${counts[key]} / ${budget[key]}`,
      ),
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((row) => row[column]!.length)),
  );
  return [header, ...cells]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
