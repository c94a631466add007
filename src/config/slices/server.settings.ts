/**
 * What the HTTP server allows each client, so that slow or greedy clients cannot starve the rest.
 * A limit of 0 is no limit.
 */
export interface HttpLimits {
  /** How long a client may take to send a request's headers (408 after). */
  headersTimeoutMs: number;
  /** How long it may take to send a whole request, body included; responses are not limited. */
  requestTimeoutMs: number;
  /** Connections this replica holds at once; past it, new ones are closed unanswered. */
  maxConnections: number;
  /** MCP event streams one principal holds open on this replica at once; past it, 429. */
  maxStreamsPerPrincipal: number;
}

/** Where this replica listens and is reached, and what its HTTP server allows each client. Injected by the modules that need it. */
export abstract class ServerSettings {
  abstract readonly port: number;
  /** The address to listen on; null: every interface. */
  abstract readonly host: string | null;
  abstract readonly publicUrl: string;
  abstract readonly httpLimits: HttpLimits;
  abstract readonly allowedOrigins: readonly string[];
  /** Host header values the MCP endpoints accept, beside loopback names (DNS-rebinding defence). */
  abstract readonly allowedHosts: readonly string[];
  /**
   * Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (addresses, CIDR ranges or
   * Express's names such as `loopback`); empty: the peer address is the client.
   */
  abstract readonly trustedProxies: readonly string[];
  abstract readonly bodyLimitBytes: number;
  /** How deep any JSON Portico parses may nest: client bodies and upstream messages alike. */
  abstract readonly jsonMaxDepth: number;
  /** How long a stopping replica lets requests in flight finish before it ends their streams. */
  abstract readonly shutdownGraceSeconds: number;
}
