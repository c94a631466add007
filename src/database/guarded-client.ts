import { Client, type ClientConfig } from 'pg';
import { fromDatabase } from '../common/database-errors';

/** pg's own error for a query that outlived `query_timeout`. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * A `pg` Client for Portico's pools that cannot take the process down and does not stay stuck:
 * - it always has an 'error' listener. pg-pool listens only while a client is idle, and TypeORM
 *   only once it holds it, so a backend terminated in between (pg_terminate_backend, a failover)
 *   raised an unhandled 'error' event and Node exited;
 * - a query that outlived `query_timeout` ends the connection. pg answers the caller but leaves
 *   the query on the connection, so a partitioned connection went back to the pool and held up
 *   every later query on it until TCP gave up, minutes later; ended, the pool drops it;
 * - what it raises is marked as the database's (see isDatabaseUnavailable).
 */
export function guardedClient(
  onError: (error: Error) => void,
  onCreate: (client: Client) => void = () => undefined,
): typeof Client {
  return class GuardedClient extends Client {
    constructor(config?: string | ClientConfig) {
      super(config);
      this.on('error', onError);
      onCreate(this);
      const query = this.query.bind(this) as (...args: unknown[]) => unknown;
      // pg's query has a dozen overloads; every one is passed through as it came.
      (this as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
        const last = args.length - 1;
        const callback = args[last];
        if (typeof callback === 'function') {
          args[last] = (error: unknown, ...rest: unknown[]) => {
            if (error) this.failed(error);
            (callback as (...values: unknown[]) => unknown)(error, ...rest);
          };
          return query(...args);
        }
        const result = query(...args);
        return result instanceof Promise
          ? result.catch((error: unknown) => {
              throw this.failed(error);
            })
          : result;
      };
    }

    override connect(): Promise<Client>;
    override connect(callback: (error: Error) => void): void;
    override connect(callback?: (error: Error) => void): Promise<Client> | void {
      if (callback) return super.connect((error: Error) => callback(fromDatabase(error)));
      return super.connect().catch((error: unknown) => {
        throw fromDatabase(error);
      });
    }

    private failed(error: unknown): unknown {
      if (error instanceof Error && error.message === READ_TIMEOUT)
        this.connection.stream.destroy();
      return fromDatabase(error);
    }
  };
}
