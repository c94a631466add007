import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/load-config';
import { buildPrefabRenderer } from '../../src/mcp/apps/prefab/build-prefab-renderer';
import { prefabRendererFile } from '../../src/mcp/apps/prefab/prefab-renderer.paths';
import {
  type ModernEverythingServer,
  startModernEverythingServer,
} from '../fixtures/modern-everything-server';
import { startTasksServer } from '../fixtures/tasks-server';
import { startSkillsServer } from '../fixtures/skills-server';
import { embeddedTemplates } from '../support/database-templates';
import { tempDataDir } from '../support/temp-dir';
import { embeddedDatabaseUrl } from '../support/test-database';
import {
  compareRuns,
  extensionSuite,
  runScenarios,
  SKILLS_SCENARIOS,
  TASKS_SCENARIOS,
} from './extension-scenarios';
import { runClientConformance } from './client-conformance';
import { formatTable, parseSummary, type RequirementRun, score } from './conformance-table';
import { runSuite } from './conformance-suite';

// The official MCP conformance suite (npm @modelcontextprotocol/conformance, Node 22 through
// npx) against Portico with an upstream behind it:
//
//   npm run conformance -- [<upstream MCP URL>] [--direct] [--modern-only]
//                          [--requirements 2026-07-28] [--requirements 2025-11-25] [suite args]
//
// and, with `client` first, Portico as the suite's client (see client-conformance.ts):
//
//   npm run conformance -- client [--requirements 2026-07-28] [suite args]
//
// and, with `--extension tasks` or `--extension skills`, that extension's scenarios (`tasks-*`,
// `sep-2640-skills-*`) against its fixture (test/fixtures/tasks-server.ts, skills-server.ts) or
// the upstream given, directly and through Portico, in one table; it fails when a scenario that
// passes directly does not pass through Portico (the virtual server serves the upstream's skills
// too):
//
//   npm run conformance -- [<upstream MCP URL>] --extension tasks|skills
//
// Without a URL the upstream is the test suite's own dual-era fixture on SDK v2
// (test/fixtures/modern-everything-server.ts; `--modern-only` starts it 2026-07-28 only).
// `--direct` runs the suite against the upstream itself, without Portico. `--requirements`
// picks the frozen requirement sets to run (both by default), one suite run each; a table of
// every scenario's result ends the output. Other arguments go to the suite as they are
// (`--scenario x --verbose`, `-o results/`); `--scenario`, `--suite` or `--spec-version`
// replace the requirement sets with one run as the suite's own flags ask.
//
// Portico runs here on an in-memory embedded database (a copy of the migrated template); the
// upstream is registered as a gateway, and a virtual server with original naming holds all of its
// tools, resources, templates and prompts. The suite cannot send a bearer token, so a loopback
// proxy adds one to every request and passes everything else (Host and Origin included) through
// as it came.

const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'];
const OWN_SELECTION = ['--scenario', '--suite', '--spec-version'];

interface Options {
  upstream?: string;
  direct: boolean;
  modernOnly: boolean;
  requirements: string[];
  suiteArgs: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    direct: false,
    modernOnly: false,
    requirements: [],
    suiteArgs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--direct') options.direct = true;
    else if (arg === '--modern-only') options.modernOnly = true;
    else if (arg === '--requirements') options.requirements.push(...(argv[++i] ?? '').split(','));
    else if (i === 0 && /^https?:\/\//.test(arg)) options.upstream = arg;
    else options.suiteArgs.push(arg);
  }
  const ownSelection = options.suiteArgs.some((arg) => OWN_SELECTION.includes(arg));
  if (options.requirements.length === 0 && !ownSelection) options.requirements = REQUIREMENT_SETS;
  return options;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'client') {
    process.exitCode = await runClientConformance(argv.slice(1));
    return;
  }
  const extensionAt = argv.indexOf('--extension');
  if (extensionAt >= 0) {
    process.exitCode = await runExtension(argv[extensionAt + 1], argv[0]);
    return;
  }
  const options = parseArgs(argv);
  let fixture: ModernEverythingServer | undefined;
  if (!options.upstream) {
    fixture = await startModernEverythingServer({
      legacy: options.modernOnly ? 'reject' : 'serve',
    });
    console.log(`upstream: the modern-everything fixture at ${fixture.url}`);
  }
  const upstream = (options.upstream ?? fixture?.url) as string;
  const portico = options.direct ? undefined : await startPortico(upstream);
  try {
    const url = portico?.url ?? upstream;
    const target = options.direct ? 'directly' : 'through Portico';
    console.log(`the suite talks to ${url} (${target})`);
    const runs: RequirementRun[] = [];
    let suiteFailed = false;
    const sets = options.requirements.length > 0 ? options.requirements : [undefined];
    for (const requirements of sets) {
      const args = [
        ...(requirements ? ['--requirements', requirements] : []),
        ...options.suiteArgs,
      ];
      const { output, code } = await runSuite(['server', '--url', url, ...args]);
      const rows = parseSummary(output);
      // A single scenario prints its checks and no summary: its exit code is the verdict.
      if (rows.length === 0) suiteFailed ||= code !== 0;
      else
        runs.push({
          requirements: requirements
            ? `--requirements ${requirements}`
            : options.suiteArgs.join(' '),
          rows,
        });
    }
    if (runs.length > 0) console.log(formatTable(runs, target));
    const failing = runs.some(({ rows }) => {
      const { passed, total } = score(rows);
      return passed < total;
    });
    process.exitCode = failing || suiteFailed ? 1 : 0;
  } finally {
    await portico?.close();
    await fixture?.close();
  }
}

/** Each extension's server scenarios and the fixture that serves them. */
const EXTENSIONS: Record<
  string,
  { scenarios: readonly string[]; fixture: () => Promise<{ url: string; close(): Promise<void> }> }
> = {
  tasks: { scenarios: TASKS_SCENARIOS, fixture: startTasksServer },
  skills: { scenarios: SKILLS_SCENARIOS, fixture: startSkillsServer },
};

/** An extension's scenarios directly and through Portico; 0 when none got worse through it. */
async function runExtension(extension: string | undefined, given: string | undefined) {
  const chosen = EXTENSIONS[extension ?? ''];
  if (!chosen) throw new Error(`--extension takes one of: ${Object.keys(EXTENSIONS).join(', ')}`);
  const fixture = given?.startsWith('http') ? undefined : await chosen.fixture();
  const upstream = fixture ? fixture.url : String(given);
  const portico = await startPortico(upstream);
  try {
    console.log(`upstream ${upstream}; through Portico ${portico.url}`);
    const suite = await extensionSuite();
    const [direct, through] = await Promise.all([
      runScenarios(upstream, chosen.scenarios, suite),
      runScenarios(portico.url, chosen.scenarios, suite),
    ]);
    for (const run of [...direct, ...through])
      for (const failure of run.failures) console.log(`${run.scenario}: ${failure}`);
    const { table, regressions } = compareRuns(direct, through);
    console.log(table);
    console.log(
      regressions.length === 0
        ? `extension ${extension}: every scenario that passes directly passes through Portico`
        : `extension ${extension}: passes directly, not through Portico: ${regressions.join(', ')}`,
    );
    return regressions.length === 0 ? 0 : 1;
  } finally {
    await portico.close();
    await fixture?.close();
  }
}

/** Portico on an in-memory database with the upstream as a gateway, behind the bearer proxy. */
export async function startPortico(
  upstream: string,
): Promise<{ url: string; close(): Promise<void> }> {
  // Portico serves the built Prefab renderer page; from sources it is built first, as in tests.
  if (!existsSync(prefabRendererFile())) await buildPrefabRenderer();
  const password = randomBytes(12).toString('hex');
  // A copy of the migrated template, not every migration again (about 5 s): the tests' global
  // set-up names it (the tests run this harness from a build, whose paths could not make one); a
  // run of its own makes it once (kept in the temporary folder).
  const template = process.env.TEST_EMBEDDED_TEMPLATE ?? (await embeddedTemplates()).migrated;
  const app = await createApp(
    loadConfig({
      DATABASE_URL: embeddedDatabaseUrl(template),
      DATA_DIR: tempDataDir(),
      ADMIN_PASSWORD: password,
      LOG_LEVEL: 'warn',
      SYNC_INTERVAL_SECONDS: '0',
      PORT: '0',
    }),
  );
  await app.listen(0, '127.0.0.1');
  const portico = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const proxy = await bearerProxy(portico, await token(portico, password));
  try {
    const path = await serverOf(portico, await token(portico, password), upstream);
    console.log(`Portico at ${portico}`);
    return {
      url: `http://localhost:${(proxy.address() as AddressInfo).port}${path}`,
      async close() {
        proxy.close();
        await app.close();
      },
    };
  } catch (error) {
    proxy.close();
    await app.close();
    throw error;
  }
}

async function token(portico: string, password: string): Promise<string> {
  const response = await call(portico, '', 'POST', '/api/v1/auth/token', {
    username: 'admin',
    password,
  });
  return (response as { accessToken: string }).accessToken;
}

/** Registers the upstream and a virtual server of all it offers, under its own names. */
async function serverOf(portico: string, bearer: string, upstream: string): Promise<string> {
  const gateway = (await call(portico, bearer, 'POST', '/api/v1/gateways', {
    name: 'reference',
    url: upstream,
  })) as { id: string; status: string; lastError: string | null };
  if (gateway.status !== 'healthy')
    throw new Error(`the upstream did not sync: ${gateway.lastError}`);
  const ids = async (path: string) =>
    (
      (await call(portico, bearer, 'GET', `${path}?gatewayId=${gateway.id}&limit=500`)) as {
        items: { id: string }[];
      }
    ).items.map((item) => item.id);
  const server = (await call(portico, bearer, 'POST', '/api/v1/servers', {
    name: 'conformance',
    naming: 'original',
    toolIds: await ids('/api/v1/tools'),
    resourceIds: await ids('/api/v1/resources'),
    resourceTemplateIds: await ids('/api/v1/resource-templates'),
    promptIds: await ids('/api/v1/prompts'),
  })) as { id: string };
  // Skills (the Skills extension) are members apart: all of the upstream's, where it has any.
  const skillIds = await ids('/api/v1/skills');
  if (skillIds.length > 0)
    await call(portico, bearer, 'PUT', `/api/v1/servers/${server.id}/skills`, { skillIds });
  return `/servers/${server.id}/mcp`;
}

async function call(base: string, bearer: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as unknown;
}

/** Forwards every request to Portico with the bearer token added, streaming both ways. */
async function bearerProxy(target: string, bearer: string): Promise<Server> {
  const { hostname, port } = new URL(target);
  const proxy = createServer((incoming: IncomingMessage, outgoing) => {
    const forwarded = httpRequest(
      {
        host: hostname,
        port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${bearer}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
