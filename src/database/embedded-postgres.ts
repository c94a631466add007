import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { type Extension, PGlite } from '@electric-sql/pglite';
import { DataDirLock } from './data-dir-lock';
import { EmbeddedSocketServer } from './embedded-socket';

// The package ships a CommonJS build of its contrib extensions but declares only ESM types for them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };
// pgvector, for the stored vectors of tool search's embeddings provider.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { vector } = require('@electric-sql/pglite-pgvector') as { vector: Extension };

const MAX_CONNECTIONS = 20;

/**
 * How many transaction ids old the template databases may grow before a start freezes them:
 * autovacuum's `autovacuum_freeze_max_age`. PostgreSQL stops taking writes once any database is
 * about two billion ids old; the upkeep (embedded-upkeep.ts) keeps Portico's own database young,
 * but it runs in that database, and PGlite's one session cannot reach another.
 */
export const TEMPLATE_FREEZE_AGE = 200_000_000;

/** How many transaction ids old the oldest of the other databases (the templates) is, as `age`. */
export const TEMPLATES_AGE = `SELECT coalesce(max(age(datfrozenxid)), 0)::int AS age
  FROM pg_database WHERE datname <> current_database()`;

/** Nest token of the running EmbeddedPostgres, or null on PostgreSQL. */
export const EMBEDDED_POSTGRES = Symbol('EmbeddedPostgres');

/**
 * PostgreSQL settings of the embedded database, passed as start-up parameters after PGlite's own.
 * PostgreSQL's default shared_buffers of 128 MB, plus what it sizes from it, is allocated and
 * touched inside the WebAssembly heap at start, which never shrinks: it alone made up about
 * 150 MiB of an idle process. One process with one backend and a small catalogue does not need
 * it; the operating system's page cache still caches the data files.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  temp_buffers: '4MB',
  maintenance_work_mem: '16MB',
};

/**
 * The V8 flag that keeps PGlite's WebAssembly on V8's baseline compiler (Liftoff). Its optimising
 * tier recompiled PostgreSQL's busy functions on background threads, whose memory the process
 * kept: 50 to 100 MiB of an idle process, and CPU at every start. Queries run about as fast on
 * the baseline code (within 10 % on inserts and lookups). It is process-wide and read when a
 * module is compiled, so it is set before each PGlite is made; nothing else in Portico runs
 * WebAssembly.
 */
const BASELINE_WASM_ONLY = '--liftoff-only';

/**
 * PGlite served on a loopback socket, so that the app talks to it through the same `pg` driver,
 * migrations and SQL as to a real PostgreSQL server.
 */
export class EmbeddedPostgres {
  private constructor(
    readonly url: string,
    private readonly db: PGlite,
    private readonly server: EmbeddedSocketServer,
    private readonly lock: DataDirLock | null,
    /** Whether this start froze the template databases (see TEMPLATE_FREEZE_AGE). */
    readonly frozeTemplates: boolean,
  ) {}

  /**
   * `dataDir` null keeps the database in memory, which then starts empty or as a copy of `from`,
   * the path of a backup (see embedded-backup.ts). The socket server drops connections beyond
   * MAX_CONNECTIONS, so every pool on it must stay below that (data sources default to 10).
   * A data directory is locked while open: two processes writing one PGlite directory corrupt it.
   * Its template databases are frozen first once they are `templateFreezeAge` ids old.
   */
  static async start(
    dataDir: string | null,
    from?: string,
    templateFreezeAge = TEMPLATE_FREEZE_AGE,
  ): Promise<EmbeddedPostgres> {
    const lock = dataDir === null ? null : DataDirLock.acquire(dataDir, { takeOverForeign: true });
    try {
      if (dataDir !== null) await initialise(dataDir);
      const load = from ? readFileSync(from) : dataDir === null ? await emptyCluster() : undefined;
      let db = await open(dataDir, load);
      const freeze = dataDir !== null && (await templatesAge(db)) > templateFreezeAge;
      if (freeze) {
        await db.close();
        await freezeTemplates(dataDir);
        db = await open(dataDir);
      }
      const server = await EmbeddedSocketServer.start(db, MAX_CONNECTIONS);
      return new EmbeddedPostgres(
        `postgres://postgres@127.0.0.1:${server.port}/postgres`,
        db,
        server,
        lock,
        freeze,
      );
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  /** A copy of the live database (see embedded-backup.ts). */
  dump(): Promise<Buffer> {
    return dump(this.db);
  }

  async stop(): Promise<void> {
    try {
      await this.server.stop();
      await this.db.close();
    } finally {
      this.lock?.release();
    }
  }
}

/** Opens PGlite on `dataDir` (null: in memory), or creates it from `load`, a dump's tarball. */
export async function open(dataDir: string | null, load?: Buffer): Promise<PGlite> {
  if (dataDir !== null) mkdirSync(dataDir, { recursive: true });
  setFlagsFromString(BASELINE_WASM_ONLY);
  return PGlite.create({
    dataDir: dataDir ?? undefined,
    extensions: { pg_trgm, vector },
    startParams: [
      ...PGlite.defaultStartParams,
      ...Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    ...(load ? { loadDataDir: new DumpBlob(load) } : {}),
  });
}

/**
 * A dump as PGlite loads it: it only asks the Blob for all its bytes at once. Node's own Blob
 * copies a buffer in, then reads it back out in chunks and joins them: about half a second for
 * the 42 MB of a migrated database, nearly as long as the rest of a start from it. This one
 * hands over the buffer's memory as it is.
 */
class DumpBlob extends Blob {
  constructor(private readonly content: Buffer) {
    super();
  }

  override get size(): number {
    return this.content.byteLength;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.content;
    const whole = byteOffset === 0 && byteLength === buffer.byteLength;
    return Promise.resolve(
      (whole ? buffer : buffer.slice(byteOffset, byteOffset + byteLength)) as ArrayBuffer,
    );
  }
}

/**
 * The database as a gzipped tarball of its data directory. PGlite runs one statement at a time,
 * so nothing writes while the files are read; the CHECKPOINT first leaves little WAL to replay
 * when the copy is opened.
 */
export async function dump(db: PGlite): Promise<Buffer> {
  await db.query('CHECKPOINT');
  const file = await db.dumpDataDir('gzip');
  return Buffer.from(await file.arrayBuffer());
}

/**
 * Creates the database cluster of a new data directory in a child process. PGlite runs initdb in
 * a second WebAssembly instance whose memory the process keeps after it is closed (the idle
 * process stayed about 150 MiB larger after a first start, and a worker thread kept most of it
 * too); a process gives all of it back when it exits. The cluster is made beside the directory
 * and moved into place, so that a creation cut short (a pod killed mid-way) leaves nothing behind.
 */
async function initialise(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0)
    throw new Error(`${dataDir} is neither empty nor an embedded database: refusing to use it.`);
  const staging = `${dataDir}.creating`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  await inChild(
    `Creating the database in ${dataDir}`,
    `const [pglite, dataDir] = process.argv.slice(1);
     require(pglite).PGlite.create({ dataDir }).then((db) => db.close());`,
    [staging],
  );
  if (existsSync(dataDir)) rmdirSync(dataDir);
  renameSync(staging, dataDir);
}

async function templatesAge(db: PGlite): Promise<number> {
  const { rows } = await db.query<{ age: number }>(TEMPLATES_AGE);
  return rows[0]!.age;
}

/**
 * Freezes `template1` and `template0` in a child process, with the database closed: PGlite opens
 * one database per instance, and each instance's memory stays with the process (see initialise).
 * Their rows were frozen when the cluster was made; the vacuum moves their oldest id up to now.
 */
async function freezeTemplates(dataDir: string): Promise<void> {
  await inChild(
    `Freezing the template databases in ${dataDir}`,
    `const [pglite, dataDir] = process.argv.slice(1);
     const { PGlite } = require(pglite);
     (async () => {
       for (const database of ['template1', 'template0']) {
         const db = await PGlite.create({ dataDir, database });
         await db.query('VACUUM FREEZE');
         await db.close();
       }
     })().catch((error) => { console.error(error); process.exit(1); });`,
    [dataDir],
  );
}

/**
 * A new, empty cluster for an in-memory database, as a dump's tarball, made in a child process
 * for the same reason as `initialise`: run in Portico's own process, initdb left an idle
 * `DATABASE_URL=pglite://memory` at about 600 MiB; loading the child's dump, at about 300 MiB.
 */
function emptyCluster(): Promise<Buffer<ArrayBuffer>> {
  return inChild(
    'Creating the in-memory database',
    `const [pglite] = process.argv.slice(1);
     require(pglite).PGlite.create().then(async (db) => {
       const file = await db.dumpDataDir('gzip');
       await db.close();
       process.stdout.write(Buffer.from(await file.arrayBuffer()));
     });`,
    [],
  );
}

/** Runs `script` in a Node process of its own, given PGlite's path and `args`; its stdout. */
async function inChild(what: string, script: string, args: string[]): Promise<Buffer<ArrayBuffer>> {
  const child = spawn(
    process.execPath,
    [BASELINE_WASM_ONLY, '-e', script, require.resolve('@electric-sql/pglite'), ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${what} failed (${code}): ${stderr}`)),
    );
  });
  return Buffer.concat(stdout);
}
