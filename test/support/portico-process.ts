import { type ChildProcess, spawn } from 'node:child_process';
import { entryArgs } from './compiled-sources';
import { freePort } from './test-app';
import { embeddedDatabaseUrl } from './test-database';
import { tempDataDir } from './temp-dir';
import { waitFor } from './wait-for';

export interface PorticoProcess {
  baseUrl: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts on a port found free a moment before; another process may take it first. */
const PORT_ATTEMPTS = 3;

/**
 * Portico as `npm start` runs it (src/main.ts, in its own process) on an in-memory database, a
 * copy of the migrated template, for what must be set up before any module loads: tracing, and the
 * logs of a whole process. A start that lost its port to another process (EADDRINUSE) is tried
 * again on another.
 */
export async function startPorticoProcess(env: Record<string, string>): Promise<PorticoProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, await freePort());
    } catch (error) {
      if (attempt === PORT_ATTEMPTS || !(error as Error).message.includes('EADDRINUSE'))
        throw error;
    }
  }
}

async function startOnce(env: Record<string, string>, port: number): Promise<PorticoProcess> {
  const baseUrl = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, entryArgs('src/main.ts'), {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATA_DIR: tempDataDir(),
      DATABASE_URL: embeddedDatabaseUrl(process.env.TEST_EMBEDDED_TEMPLATE),
      LOG_LEVEL: 'error',
      PASSWORD_HASH_COST: '14',
      SYNC_INTERVAL_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let ended = false;
  // 'close' comes once its output is read too, which says why it exited.
  const exited = new Promise<void>((resolve) =>
    child.once('close', () => {
      ended = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(
      async () => {
        if (ended) throw new Error('Portico exited before it was ready');
        // Whatever holds the port may never answer.
        const ready = fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
        return (await ready.catch(() => null))?.ok;
      },
      'Portico to start',
      60_000,
      250,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}: ${output}`);
  }
  return { baseUrl, output: () => output, stop };
}
