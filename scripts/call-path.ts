import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as SessionTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildPrefabRenderer } from '../src/mcp/apps/prefab/build-prefab-renderer';
import { startModernEverythingServer } from '../test/fixtures/modern-everything-server';
import { echoTool, startUpstream } from '../test/fixtures/upstream-server';
import { embeddedTemplates } from '../test/support/database-templates';
import { connectClient } from '../test/support/mcp-client';
import { MODERN } from '../test/support/modern-client';
import { startTestApp } from '../test/support/test-app';
import { onPostgres } from '../test/support/test-database';
import {
  type CallPathCounts,
  classOf,
  type Combination,
  countFiles,
  describeCombination,
  type Era,
  type FileClass,
  formatTable,
  type FunctionRun,
  functionsRun,
  labelOf,
  onEveryCall,
  overBudget,
  PURE_LEAVES,
  sourceLines,
} from './call-path-report';

// `npm run call-path`: which of Portico's source files run during one warm `tools/call` through
// `/mcp`, for each client era × upstream era, from V8's call counts (precise coverage) around
// the call. Portico, both upstreams and both clients share this process; only `src/` is counted.
// It fails when a combination with a budget is over it, unless CALL_PATH_REPORT_ONLY=1.

const WARM_CALLS = 20;
/** Calls measured one by one per combination; a function counts when it ran in every one. */
const MEASURED_CALLS = 3;
/** After the client has its answer, for the work the answer set off (the response's end). */
const SETTLE_MS = 20;
/** A window with no call, to show what timers run on their own. */
const IDLE_MS = 200;
const ROOT = resolve(__dirname, '..');
const ERAS: readonly Era[] = ['2026-07-28', '2025'];
const TOOLS: Record<Era, string> = { '2026-07-28': 'test_simple_text', '2025': 'echo' };

const CLASS_TITLES: Record<FileClass, string> = {
  knowsMcp: 'Files that know MCP',
  pureLeaf: `Pure leaves (${PURE_LEAVES.join(', ')})`,
  elsewhere: 'Elsewhere in src',
};

type Closer = () => Promise<void>;
type Call = (combination: Combination) => Promise<void>;

interface Measured {
  combination: Combination;
  every: FunctionRun[];
  some: FunctionRun[];
  counts: CallPathCounts;
}

async function main(): Promise<void> {
  const closing: Closer[] = [];
  try {
    const call = await start(closing);
    const inspector = new Session();
    inspector.connect();
    closing.push(async () => inspector.disconnect());
    const { measured, idle } = await measure(inspector, call);
    const label = await labeller(inspector);
    await report(measured, idle, label);
  } finally {
    for (const close of closing.reverse()) await close();
  }
}

/** Both upstreams, Portico with each as its own gateway, and both clients. */
async function start(closing: Closer[]): Promise<Call> {
  if (!onPostgres) process.env.TEST_EMBEDDED_TEMPLATE ??= (await embeddedTemplates()).migrated;
  await buildPrefabRenderer();
  const modernUpstream = await startModernEverythingServer({ legacy: 'reject' });
  closing.push(() => modernUpstream.close());
  // The 2026-07-28 fixture answers Portico's `server/discover` probe even when it serves 2025
  // too; this one is an SDK v1 server, so the probe finds a 2025 upstream.
  const sessionUpstream = await startUpstream({ tools: [echoTool(TOOLS['2025'], 'sessions')] });
  closing.push(() => sessionUpstream.close());
  const portico = await startTestApp();
  closing.push(() => portico.close());

  for (const [name, url, era] of [
    ['Modern', modernUpstream.url, '2026-07-28'],
    ['Sessions', sessionUpstream.url, '2025'],
  ] as const) {
    const response = await portico.api().post('/api/v1/gateways').send({ name, url }).expect(201);
    const gateway = response.body as { protocol: { version: string | null } | null };
    const version = gateway.protocol?.version;
    if ((version === MODERN) !== (era === MODERN))
      throw new Error(`Portico took the ${era} upstream ${name} for ${version ?? 'a 2025 one'}`);
  }

  const modern = new Client(
    { name: 'call-path', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await modern.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', portico.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${portico.token}` } },
    }),
  );
  closing.push(() => modern.close());
  const session = await connectClient(portico.baseUrl, { token: portico.token });
  closing.push(async () => {
    // Ended as a client should end its session: else Portico's shutdown waits seconds for the
    // session's connections to go.
    if (session.transport instanceof SessionTransport) await session.transport.terminateSession();
    await session.close();
  });

  const names = (await modern.listTools()).tools.map((tool) => tool.name);
  const toolOf = (upstream: Era): string => {
    const name = names.find((candidate) => candidate.endsWith(TOOLS[upstream]));
    if (!name) throw new Error(`No tool ${TOOLS[upstream]} among ${names.join(', ')}`);
    return name;
  };
  return async ({ client, upstream }) => {
    const name = toolOf(upstream);
    const result =
      client === '2025'
        ? await session.callTool({ name, arguments: {} })
        : await modern.callTool({ name, arguments: {} });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result)}`);
  };
}

/** Each combination warmed, then measured call by call; then a window with no call. */
async function measure(
  inspector: Session,
  call: Call,
): Promise<{ measured: Measured[]; idle: FunctionRun[] }> {
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const window = async (work: () => Promise<void>, settleMs: number) => {
    // Taking coverage resets the counts: what the next take reports ran in between.
    await inspector.post('Profiler.takePreciseCoverage');
    await work();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const { result } = await inspector.post('Profiler.takePreciseCoverage');
    return functionsRun(result, ROOT);
  };
  const measured: Measured[] = [];
  for (const client of ERAS)
    for (const upstream of ERAS) {
      const combination = { client, upstream };
      for (let warm = 0; warm < WARM_CALLS; warm++) await call(combination);
      const calls: FunctionRun[][] = [];
      for (let index = 0; index < MEASURED_CALLS; index++)
        calls.push(await window(() => call(combination), SETTLE_MS));
      const { every, some } = onEveryCall(calls);
      const counts = countFiles(every.map((run) => run.file));
      measured.push({ combination, every, some, counts });
    }
  const idle = await window(async () => undefined, IDLE_MS);
  await inspector.post('Profiler.stopPreciseCoverage');
  return { measured, idle };
}

async function report(measured: Measured[], idle: FunctionRun[], label: Label): Promise<void> {
  const print = (files: Map<string, string[]>) => {
    for (const [file, functions] of files) console.log(`  ${file}: ${functions.join(', ')}`);
  };
  for (const { combination, every, some, counts } of measured) {
    console.log(`\n## ${describeCombination(combination)}: ${counts.all} source files`);
    const files = await byFile(every, label);
    for (const kind of Object.keys(CLASS_TITLES) as FileClass[]) {
      const ofKind = new Map([...files].filter(([file]) => classOf(file) === kind));
      console.log(`${CLASS_TITLES[kind]}: ${ofKind.size}`);
      print(ofKind);
    }
    if (some.length > 0) {
      console.log(`Ran in some of the ${MEASURED_CALLS} calls only (not counted):`);
      print(await byFile(some, label));
    }
  }
  const background = await byFile(idle, label);
  console.log(`\n## No call, ${IDLE_MS} ms: ${background.size} source files`);
  print(background);

  console.log(`\n${formatTable(measured)}\n(count / budget where one applies)`);
  const over = measured.flatMap(({ combination, counts }) => overBudget(combination, counts));
  if (over.length === 0) console.log('Every budget is kept.');
  else if (process.env.CALL_PATH_REPORT_ONLY === '1')
    console.log(`Over budget (CALL_PATH_REPORT_ONLY=1, not failing):\n  ${over.join('\n  ')}`);
  else {
    console.error(`Over budget:\n  ${over.join('\n  ')}`);
    process.exitCode = 1;
  }
}

type Label = (run: FunctionRun) => Promise<string>;

/** Names anonymous functions by their line, read through the source map of the code V8 ran. */
async function labeller(inspector: Session): Promise<Label> {
  await inspector.post('Debugger.enable');
  const lines = new Map<string, (offset: number) => number | undefined>();
  return async (run) => {
    if (run.name !== '' || run.moduleBody) return labelOf(run, undefined);
    let lineOf = lines.get(run.scriptId);
    if (!lineOf) {
      const { scriptSource } = await inspector.post('Debugger.getScriptSource', {
        scriptId: run.scriptId,
      });
      lineOf = sourceLines(scriptSource);
      lines.set(run.scriptId, lineOf);
    }
    return labelOf(run, lineOf(run.offset));
  };
}

/** Files in order, each with its functions in source order. */
async function byFile(runs: readonly FunctionRun[], label: Label): Promise<Map<string, string[]>> {
  const files = new Map<string, string[]>();
  const ordered = [...runs].sort((a, b) => a.file.localeCompare(b.file) || a.offset - b.offset);
  for (const run of ordered) {
    const functions = files.get(run.file) ?? [];
    const name = await label(run);
    if (!functions.includes(name)) functions.push(name);
    files.set(run.file, functions);
  }
  return files;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
