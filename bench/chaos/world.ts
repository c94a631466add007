import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client as PgClient } from 'pg';
import { scratchDatabase } from '../gateway-overhead.bench';
import { api, liveChildren, type Running, startPortico, startUpstream } from '../support';
import { type ChaosConfig } from './config';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects with `message` if `work` has not settled within `ms`. */
export async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${message} (no answer in ${ms} ms)`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * What a scenario started, undone in reverse order when it ends however it ends. Each step is
 * bounded, and one that fails does not stop the others.
 */
export class Scope {
  private readonly steps: { name: string; undo: () => unknown }[] = [];

  defer(name: string, undo: () => unknown): void {
    this.steps.push({ name, undo });
  }

  /** A child process, ended (TERM, then KILL) when the scope closes. */
  own(child: ChildProcess): void {
    this.defer(`process ${child.pid}`, () => stopChild(child));
  }

  async close(): Promise<void> {
    for (const { name, undo } of this.steps.splice(0).reverse()) {
      try {
        await withTimeout(Promise.resolve().then(undo), 20_000, `cleanup: ${name}`);
      } catch (error) {
        console.error(`chaos: cleanup of ${name} failed: ${(error as Error).message}`);
      }
    }
  }
}

export const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function stopChild(child: ChildProcess): Promise<void> {
  if (!alive(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
  if (stopped) return;
  child.kill('SIGKILL');
  await Promise.race([exited, sleep(5000)]);
}

/** Resident memory of a process in MiB, from /proc; null once it is gone. */
export function rssMiB(pid: number | undefined): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Runs one statement on the PostgreSQL server as the suite's own administrator connection. */
export async function adminSql(config: ChaosConfig, sql: string): Promise<number> {
  const client = new PgClient({
    connectionString: config.postgresUrl,
    connectionTimeoutMillis: 5000,
    statement_timeout: 10_000,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rowCount ?? 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh database for one scenario, dropped when the scope closes. */
export async function scenarioDatabase(
  config: ChaosConfig,
  scope: Scope,
): Promise<{ name: string; url: string }> {
  const database = await scratchDatabase(config.postgresUrl, 'chaos');
  scope.defer(`database ${database.name}`, () => database.drop());
  return database;
}

/** The same URL with its host and port replaced: the way through a FaultProxy. */
export function through(url: string, port: number): string {
  const rerouted = new URL(url);
  rerouted.hostname = '127.0.0.1';
  rerouted.port = String(port);
  return rerouted.toString();
}

export interface Portico {
  baseUrl: string;
  mcpUrl: string;
  token: string;
  child: ChildProcess;
  /** Why it is gone, or null while it runs. */
  death(): string | null;
}

/** Secrets shared by replicas of one deployment, so each accepts the other's tokens. */
export interface Deployment {
  JWT_SECRET: string;
  ENCRYPTION_KEY: string;
}

export const newDeployment = (): Deployment => ({
  JWT_SECRET: randomBytes(48).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
});

/**
 * Portico from dist/ as its own process (the bench's `startPortico`), on `databaseUrl`, with an
 * admin token. Syncs only when asked, Redis only when given, and no shutdown grace.
 */
export async function startChaosPortico(
  config: ChaosConfig,
  scope: Scope,
  databaseUrl: string,
  env: Record<string, string> = {},
  deployment: Deployment = newDeployment(),
): Promise<Portico> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-chaos-'));
  scope.defer(`data dir ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const started = await withTimeout(
    startPortico(port, {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PASSWORD_HASH_COST: '14',
      SHUTDOWN_GRACE_SECONDS: '0',
      UPSTREAM_TIMEOUT_MS: String(config.upstreamTimeoutMs),
      REDIS_URL: '',
      ...deployment,
      ...env,
    }),
    90_000,
    'Portico to start',
  );
  scope.own(started.child);
  const { child } = started;
  const death = () =>
    alive(child)
      ? null
      : `exited (${child.signalCode ?? child.exitCode}): ${lastError(started.output())}`;
  // Runs before the scope stops the process: one gone by then died by itself, so keep its words.
  scope.defer('crash log', () => {
    if (death() === null) return;
    const file = join(dirname(config.outputFile), `last-run-portico-${child.pid}.log`);
    writeFileSync(file, started.output());
    console.log(`chaos: Portico ${child.pid} died; the end of its output is in ${file}`);
  });
  return {
    baseUrl: started.baseUrl,
    mcpUrl: `${started.baseUrl}/mcp`,
    token: started.token,
    child,
    death,
  };
}

/**
 * The line of a process's output that best says why it died: Node prints an uncaught error as
 * plain text after the JSON log lines, its message on the line after the `throw` excerpt.
 */
function lastError(output: string): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const plain = lines.slice(-60).filter((line) => !line.trimStart().startsWith('{'));
  const crash =
    plain.find((line) => /^\s*(\w*Error|error)\b.*:/.test(line) && !/^\s+at /.test(line)) ??
    plain.find((line) => /unhandled|uncaught|fatal/i.test(line));
  return (crash ?? lines.at(-1) ?? '(no output)').trim().slice(0, 200);
}

/** An upstream MCP server (the bench's fixture process) with tools tool_0 … tool_2. */
export async function chaosUpstream(
  scope: Scope,
  port = 0,
  env: Record<string, string> = {},
): Promise<Running & { url: string }> {
  const upstream = await withTimeout(
    startUpstream(3, port, '2025-11-25', env),
    60_000,
    'an upstream to start',
  );
  scope.own(upstream.child);
  return upstream;
}

/** Registers an upstream as gateway `name`: its tools are then `<name>-tool_0` …. */
export async function addGateway(portico: Portico, name: string, url: string): Promise<void> {
  await api(portico.baseUrl, portico.token, 'POST', '/api/v1/gateways', { name, url });
}

/** A tool's id, for PATCH. */
export async function toolId(portico: Portico, name: string): Promise<string> {
  const tool = await api<{ id: string }>(
    portico.baseUrl,
    portico.token,
    'GET',
    `/api/v1/tools/by-name/${encodeURIComponent(name)}`,
  );
  return tool.id;
}

/** Whether a Redis server answers PING at `url`, within a second. */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data: Buffer) => done(data.toString().startsWith('+PONG')));
  });
}

/** Kills every process the suite started, synchronously: for `process.on('exit')`. */
export function killAllChildren(): void {
  for (const child of liveChildren) if (alive(child)) child.kill('SIGKILL');
}
