import { Logger } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer, type Server } from 'node:http';
import { type HttpLimits } from './config/slices/server.settings';

/** Longer than the idle limit of the clients and load balancers in front of Portico. */
const KEEP_ALIVE_MS = 65_000;

/**
 * How often Node looks for requests past their timeouts. Its default, 30 s, is added to each
 * timeout in the worst case: slow clients were measured holding their connections 77 s for a
 * 60 s headers timeout.
 */
const TIMEOUT_CHECK_MS = 1000;

/** At most one warning about refused connections in this long, however many there are. */
const DROP_WARNING_MS = 10_000;

/**
 * Nest's Express adapter with an HTTP server that limits how long each connection may take:
 * Node takes how often it checks the timeouts only when the server is created. Portico serves
 * plain HTTP (TLS ends at its proxy), so Nest's HTTPS options do not apply.
 */
export class LimitedExpressAdapter extends ExpressAdapter {
  constructor(private readonly limits: HttpLimits) {
    super();
  }

  override initHttpServer(): void {
    this.httpServer = createServer(
      {
        // Clients and load balancers keep connections to Portico open between calls. Node's 5 s
        // idle limit is shorter than theirs, so a connection reused just as Portico closes it
        // resets (ECONNRESET); outlast them instead (common load balancers idle out at 60 s).
        keepAliveTimeout: KEEP_ALIVE_MS,
        // Timed from a request's first byte, so an idle kept-alive connection is not cut by it.
        headersTimeout: this.limits.headersTimeoutMs,
        // Until the whole request is in, body included; the response (an event stream) is not
        // limited.
        requestTimeout: this.limits.requestTimeoutMs,
        connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, this.limits.headersTimeoutMs),
      },
      this.getInstance(),
    );
  }
}

/**
 * Caps the connections the server holds, so that slow or greedy clients cannot take them all
 * unnoticed: `dropped` hears of each connection refused at the cap, and a warning says so now and
 * then.
 */
export function capConnections(server: Server, limits: HttpLimits, dropped: () => void): void {
  if (limits.maxConnections === 0) return;
  server.maxConnections = limits.maxConnections;
  const logger = new Logger('HttpServer');
  let unreported = 0;
  let lastWarning = 0;
  // Node closes a connection past the cap before reading anything: there is no request to answer.
  server.on('drop', () => {
    dropped();
    unreported += 1;
    if (Date.now() - lastWarning < DROP_WARNING_MS) return;
    logger.warn(
      `Refused ${unreported} connection(s): this replica holds ${limits.maxConnections}, the most HTTP_MAX_CONNECTIONS allows`,
    );
    unreported = 0;
    lastWarning = Date.now();
  });
}
