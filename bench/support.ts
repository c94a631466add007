import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';

const ROOT = join(__dirname, '..');
export const ADMIN_PASSWORD = 'bench-password-1';

export interface Running {
  child: ChildProcess;
  stop(): void;
  /** Writes a line to the process and waits for its output to match `reply`. */
  command(line: string, reply: RegExp): Promise<void>;
  /** The last 64 KiB it wrote to stdout and stderr. */
  output(): string;
}

const OUTPUT_KEPT = 64 * 1024;

/** Every process started here that has not exited yet, for a harness to end on its way out. */
export const liveChildren = new Set<ChildProcess>();

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a process and resolves once its output matches `ready`. */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<Running & { match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    liveChildren.add(child);
    child.once('exit', () => liveChildren.delete(child));
    let output = '';
    let started = false;
    const onData = (data: Buffer) => {
      output += data.toString();
      // Once started, only the tail is kept: a process that logs for an hour must not grow this.
      if (started && output.length > OUTPUT_KEPT) output = output.slice(-OUTPUT_KEPT);
      const match = started ? null : ready.exec(output);
      if (match) {
        started = true;
        resolve({
          child,
          match,
          stop: () => child.kill(),
          command: (line, reply) => command(child, line, reply),
          output: () => output,
        });
      }
      if (process.env.BENCH_VERBOSE) process.stderr.write(data);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`process exited with ${code}:\n${output}`)));
  });
}

/** The MCP revisions the bench measures: a 2025 session, or the stateless 2026-07-28 wire. */
export type Era = '2025-11-25' | '2026-07-28';

/**
 * A benchmark upstream in its own process, on `port` (0: any free one): the 2025 test fixture
 * on SDK v1, or with `era` 2026-07-28 the same tools on SDK v2's stateless handler. `env` says
 * more of it (FLOOD, see upstream-process.ts).
 */
export async function startUpstream(
  tools: number,
  port = 0,
  era: Era = '2025-11-25',
  env: Record<string, string> = {},
): Promise<Running & { url: string }> {
  const running = await startProcess(
    ['-r', 'ts-node/register/transpile-only', 'bench/upstream-process.ts'],
    { TOOLS: String(tools), PORT: String(port), ERA: era, ...env },
    /http:\/\/\S+\/mcp/,
  );
  return { ...running, url: running.match[0] };
}

/**
 * Portico from dist/ in its own process, on the embedded database unless BENCH_DATABASE_URL is set.
 * BENCH_CPU_PROFILE names a folder for a V8 CPU profile of the Portico process, written as it exits,
 * sampled every BENCH_CPU_PROFILE_INTERVAL_US microseconds (V8's default: 1,000).
 */
export async function startPortico(
  port: number,
  env: Record<string, string> = {},
): Promise<Running & { baseUrl: string; token: string }> {
  const profile = process.env.BENCH_CPU_PROFILE;
  const interval = process.env.BENCH_CPU_PROFILE_INTERVAL_US;
  const running = await startProcess(
    [
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
      ...(profile && interval ? [`--cpu-prof-interval=${interval}`] : []),
      'dist/src/main.js',
    ],
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-bench-')),
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'pglite://memory',
      ADMIN_PASSWORD,
      LOG_LEVEL: 'log',
      SYNC_INTERVAL_SECONDS: '0',
      ...env,
    },
    /Nest application successfully started/,
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const response = await fetch(`${baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const { accessToken } = (await response.json()) as { accessToken: string };
  return { ...running, baseUrl, token: accessToken };
}

export async function api<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export async function mcpClient(
  url: string,
  token?: string,
  options?: RequestOptions,
): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
    ),
    options,
  );
  return client;
}

/** What the bench asks of an MCP client, the same of either SDK. */
export interface BenchClient {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * SDK v2's client pinned to 2026-07-28: no session, so connecting is one `server/discover`, and
 * every request carries its version, capabilities and client in `_meta`.
 */
export async function modernClient(url: string, token?: string): Promise<BenchClient> {
  const client = new ModernClient(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new ModernTransport(
      new URL(url),
      token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
    ),
  );
  return client;
}

/** A connected client of `era`'s own SDK: v1 for a 2025 session, v2 for 2026-07-28. */
export const eraClient = (era: Era, url: string, token?: string): Promise<BenchClient> =>
  era === '2026-07-28' ? modernClient(url, token) : mcpClient(url, token);

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export async function timed(runs: number, work: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

function command(child: ChildProcess, line: string, reply: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const onData = (data: Buffer) => {
      if (!reply.test(data.toString())) return;
      child.stdout!.off('data', onData);
      resolve();
    };
    child.stdout!.on('data', onData);
    child.stdin!.write(`${line}\n`);
  });
}

/** Runs a bench as its own process: prints what it returns, exits 0, or 1 with the error. */
export function runAlone<T>(bench: () => Promise<T>, print: (result: T) => string): void {
  bench().then(
    (result) => {
      console.log(print(result));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

export const asJson = (result: unknown): string => JSON.stringify(result, null, 2);
