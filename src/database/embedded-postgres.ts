import { mkdirSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { type Extension, PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

// The package ships a CommonJS build of its contrib extensions but declares only ESM types for them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pgcrypto } = require('@electric-sql/pglite/contrib/pgcrypto') as { pgcrypto: Extension };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };
// pgvector, for the stored vectors of tool search's embeddings provider.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { vector } = require('@electric-sql/pglite-pgvector') as { vector: Extension };

const MAX_CONNECTIONS = 20;

/**
 * PGlite served on a loopback socket, so that the app talks to it through the same `pg` driver,
 * migrations and SQL as to a real PostgreSQL server.
 */
export class EmbeddedPostgres {
  private constructor(
    readonly url: string,
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
  ) {}

  /**
   * `dataDir` null keeps the database in memory. The socket server drops connections beyond
   * MAX_CONNECTIONS, so every pool on it must stay below that (data sources default to 10).
   */
  static async start(dataDir: string | null): Promise<EmbeddedPostgres> {
    if (dataDir !== null) mkdirSync(dataDir, { recursive: true });
    const db = await PGlite.create({
      dataDir: dataDir ?? undefined,
      extensions: { pgcrypto, pg_trgm, vector },
    });
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: MAX_CONNECTIONS,
    });
    await server.start();
    const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
    return new EmbeddedPostgres(`postgres://postgres@127.0.0.1:${port}/postgres`, db, server);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
