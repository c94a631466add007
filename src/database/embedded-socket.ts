import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { type PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';

/** Frontend messages after which the backend is ready for another query: Sync and Query. */
const SYNC = 0x53;
const QUERY = 0x51;

interface Waiting {
  connection: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: Error) => void;
}

/**
 * Puts the embedded database's connections through PGlite's single backend session one at a time.
 * A connection keeps the session from the first message of a query until the backend is ready
 * for another one outside a transaction: through an extended query (Parse, Bind, Execute, …
 * Sync) and through a whole transaction. The queue that `@electric-sql/pglite-socket` ships hands
 * the session to another connection between any two messages outside a transaction, so another
 * connection's BEGIN could land inside an extended query and take that statement into its own
 * transaction, and roll it back with it (electric-sql/pglite#1046); and one failed message
 * stopped its queue for good.
 */
export class SessionQueue {
  private readonly waiting: Waiting[] = [];
  /** The connection that has the session, between two points where the backend is idle. */
  private owner: number | null = null;
  private running = false;

  constructor(private readonly db: PGlite) {}

  enqueue(connection: number, message: Uint8Array, onData: Waiting['onData']): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ connection, message, onData, resolve, reject });
      void this.run();
    });
  }

  clearQueueForHandler(connection: number): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i]!.connection !== connection) continue;
      this.waiting.splice(i, 1)[0]!.reject(new Error('The connection closed'));
    }
  }

  /** A connection that closed while it had the session: what it left open is rolled back. */
  async clearTransactionIfNeeded(connection: number): Promise<void> {
    if (this.owner !== connection) return;
    // Until the rollback is done the session stays this connection's, so nobody runs inside it.
    await this.db.exec('ROLLBACK').catch(() => undefined);
    this.owner = null;
    void this.run();
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.next(); next; next = this.next()) {
        this.owner = next.connection;
        await this.execute(next);
        if (endsQuery(next.message) && !this.db.isInTransaction()) this.owner = null;
      }
    } finally {
      this.running = false;
    }
  }

  /** The owner's next message; anyone's when the session is free; none while the owner is silent. */
  private next(): Waiting | undefined {
    const index =
      this.owner === null ? 0 : this.waiting.findIndex((w) => w.connection === this.owner);
    return index === -1 ? undefined : this.waiting.splice(index, 1)[0];
  }

  private async execute(waiting: Waiting): Promise<void> {
    let bytes = 0;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(waiting.message, {
          onRawData: (data) => {
            bytes += data.length;
            waiting.onData(data);
          },
        }),
      );
      waiting.resolve(bytes);
    } catch (error) {
      waiting.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

const ignore = () => undefined;

/**
 * The socket always has an 'error' listener. The protocol handler's detach removes every one and
 * then ends the socket, and an error the socket raised after that (a write to a client that had
 * reset) would be unhandled and end the process.
 */
function keepErrorListener(socket: Socket): void {
  socket.on('error', ignore);
  const removeAll = socket.removeAllListeners.bind(socket);
  socket.removeAllListeners = (event?: string | symbol) => {
    removeAll(event);
    if (event === undefined || event === 'error') socket.on('error', ignore);
    return socket;
  };
}

/** Sync, Query, or the start-up message (no type byte: it starts with its length, below 2^24). */
function endsQuery(message: Uint8Array): boolean {
  return message[0] === SYNC || message[0] === QUERY || message[0] === 0;
}

/**
 * PGlite on a loopback socket, for the `pg` driver: each connection gets a protocol handler of
 * `@electric-sql/pglite-socket`, and all of them share one SessionQueue.
 */
export class EmbeddedSocketServer {
  private readonly connections = new Set<PGLiteSocketHandler>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port; connections beyond `maxConnections` are refused. */
  static async start(db: PGlite, maxConnections: number): Promise<EmbeddedSocketServer> {
    await db.waitReady;
    const queue = new SessionQueue(db);
    const server = createServer();
    server.maxConnections = maxConnections;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const started = new EmbeddedSocketServer(server, (server.address() as AddressInfo).port);
    server.on('connection', (socket) => started.accept(socket, queue));
    // A failed accept (out of file descriptors) fails that connection, not the process.
    server.on('error', (error) =>
      new Logger('Database').warn(`The embedded database's socket failed: ${error.message}`),
    );
    return started;
  }

  private accept(socket: Socket, queue: SessionQueue): void {
    keepErrorListener(socket);
    const connection = new PGLiteSocketHandler({
      // The handler needs only enqueue, clearQueueForHandler and clearTransactionIfNeeded; its
      // type names the package's own queue class.
      queryQueue: queue as unknown as ConstructorParameters<
        typeof PGLiteSocketHandler
      >[0]['queryQueue'],
      closeOnDetach: true,
    });
    this.connections.add(connection);
    const forget = () => this.connections.delete(connection);
    connection.addEventListener('close', forget);
    connection.addEventListener('error', forget);
    connection.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  }

  async stop(): Promise<void> {
    for (const connection of this.connections) await connection.detach(true);
    this.connections.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
