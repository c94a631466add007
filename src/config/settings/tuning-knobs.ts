import { DEFAULT_HASH_COST } from '../../common/scrypt-parameters';
import { type TuningKnob } from './setting';

/**
 * The tuning knobs: timeouts, breaker, limits, TTLs and cache sizes, set in the configuration
 * document's `settings` block (by `key`). Each default is the value Portico had before the
 * document could set it; the old environment variable (`env`) is still read for one release.
 */
export const TUNING_KNOBS: readonly TuningKnob[] = [
  {
    key: 'http.headersTimeoutMs',
    env: 'HTTP_HEADERS_TIMEOUT_MS',
    type: 'integer',
    default: 10000,
    min: 100,
    max: 600000,
    description:
      "How long a client may take to send a request's headers; then 408 and the connection closes. An idle kept-alive connection is not cut by it (it waits 65 s for the next request).",
  },
  {
    key: 'http.requestTimeoutMs',
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 100,
    max: 3600000,
    description:
      'How long a client may take to send a whole request, body included; then 408. Responses are not limited: event streams and slow answers stay open. Not shorter than `http.headersTimeoutMs`. Raise it for large uploads over slow links.',
  },
  {
    key: 'http.maxConnections',
    env: 'HTTP_MAX_CONNECTIONS',
    type: 'integer',
    default: 10000,
    min: 0,
    max: 1000000,
    description:
      'Connections one replica holds at once; past it new ones are closed unanswered (counted in `portico_http_connections_dropped_total`, with a warning at most every 10 s). `0`: no cap.',
  },
  {
    key: 'mcp.maxStreamsPerPrincipal',
    env: 'MCP_MAX_STREAMS_PER_PRINCIPAL',
    type: 'integer',
    default: 256,
    min: 0,
    max: 100000,
    description:
      "MCP event streams one principal (a user or token) holds open on one replica: GET streams of sessions, `/sse` streams, and answers to POSTs that became streams. Past it a new GET or `/sse` stream gets HTTP 429; the sessions' POSTs still work. `0`: no cap.",
  },
  {
    key: 'database.connectTimeoutMs',
    env: 'DATABASE_CONNECT_TIMEOUT_MS',
    type: 'integer',
    default: 5000,
    min: 100,
    max: 120000,
    description:
      'Longest wait to open a database connection or to get one from the pool. The embedded database serves one connection at a time (a transaction keeps it to its end), so there a connection waits its turn as long as a statement may run (`database.queryTimeoutMs`) when that is longer.',
  },
  {
    key: 'database.queryTimeoutMs',
    env: 'DATABASE_QUERY_TIMEOUT_MS',
    type: 'integer',
    default: 15000,
    min: 100,
    max: 3600000,
    description:
      'Longest a statement may run (PostgreSQL `statement_timeout`); the client gives up 1 s later and drops that connection. Migrations are exempt.',
  },
  {
    key: 'auth.passwordHashCost',
    env: 'PASSWORD_HASH_COST',
    type: 'integer',
    default: DEFAULT_HASH_COST,
    min: 14,
    max: 20,
    description:
      "scrypt cost of new password hashes, as log2 of N (14–20; 17 is OWASP's 2^17, 128 MiB and about 0.3 s per hash). Stored hashes keep their own cost; raising it upgrades each account at its next login. The test suite uses 14.",
  },
  {
    key: 'auth.tokenTtlSeconds',
    env: 'TOKEN_TTL_SECONDS',
    type: 'integer',
    default: 28800,
    min: 60,
    max: 31536000,
    description:
      'Lifetime of login tokens (`POST /api/v1/auth/token`), admin sessions, and the default of per-server tokens.',
  },
  {
    key: 'auth.cacheTtlSeconds',
    env: 'AUTH_CACHE_TTL_SECONDS',
    type: 'integer',
    default: 60,
    min: 1,
    max: 3600,
    description:
      'How long a cached user, API token or OAuth grant is trusted before it is read again (changes drop it at once); during a database outage the last one read keeps serving.',
  },
  {
    key: 'auth.maxApiTokensPerUser',
    type: 'integer',
    default: 100,
    min: 1,
    max: 100000,
    description:
      'Active [API tokens](#api-tokens) (not revoked, not expired) one user may hold, whichever route mints them (API, admin pages, per-server tokens). Past it a new one is refused with 409 `token.limit_reached` until one is revoked or expires.',
  },
  {
    key: 'sync.intervalSeconds',
    env: 'SYNC_INTERVAL_SECONDS',
    type: 'integer',
    default: 300,
    min: 0,
    max: 604800,
    description: 'Periodic upstream sync (jittered); `0` disables it.',
  },
  {
    key: 'sync.changeWaitMs',
    type: 'integer',
    default: 3000,
    min: 0,
    max: 600000,
    description:
      "How long creating a gateway, enabling it, changing its connection or applying a configuration document waits for the gateway's sync before answering, so that the answer already shows its tools; past it the sync goes on in the background. Raise it where a pipeline reads the catalogue right after registering (a slow upstream, an npm server that is still starting); `0` answers at once.",
  },
  {
    key: 'sync.oauthRefreshSeconds',
    type: 'integer',
    default: 30,
    min: 1,
    max: 3600,
    description:
      'How often the leading replica looks for stored OAuth tokens of upstreams that expire within 90 s (or three such periods, when longer) and refreshes them, used or not: refresh tokens often expire when idle. A call refreshes a token that is due itself.',
  },
  {
    key: 'upstream.timeoutMs',
    perGateway: true,
    env: 'UPSTREAM_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 100,
    max: 3600000,
    description:
      "Connect and call timeout towards upstreams. The time a client takes to answer an upstream's sampling, elicitation or roots request does not count; such an answer may take up to 10 minutes.",
  },
  {
    key: 'upstream.callMaxMs',
    perGateway: true,
    type: 'integer',
    default: 600000,
    min: 100,
    max: 86400000,
    description:
      "The longest one call to an upstream may run, however often the upstream says it is still working (each progress notification or log message restarts `timeoutMs`, never this): past it the call is cancelled upstream and its client gets a timeout error. The time a client takes to answer the upstream's own requests does not count. Raise it for tools that report progress for longer; work that outlasts a request belongs in a task.",
  },
  {
    key: 'upstream.breakerFailures',
    perGateway: true,
    env: 'UPSTREAM_BREAKER_FAILURES',
    type: 'integer',
    default: 5,
    min: 0,
    max: 10000,
    description:
      "Upstream failures in a row (no connection, reset, timeout, 5xx) that open a gateway's [circuit breaker](#when-an-upstream-is-down-hanging-or-slow) on this replica; `0` never opens it.",
  },
  {
    key: 'upstream.breakerFirstCooldownMs',
    perGateway: true,
    env: 'UPSTREAM_BREAKER_FIRST_COOLDOWN_MS',
    type: 'integer',
    default: 500,
    min: 10,
    max: 3600000,
    description:
      'First wait of an open breaker before one trial call; it stays this short while trials are refused at once, and doubles after each trial that hangs.',
  },
  {
    key: 'upstream.breakerCooldownMs',
    perGateway: true,
    env: 'UPSTREAM_BREAKER_COOLDOWN_MS',
    type: 'integer',
    default: 10000,
    min: 10,
    max: 3600000,
    description: 'Longest wait of an open breaker before a trial call.',
  },
  {
    key: 'upstream.maxConcurrent',
    perGateway: true,
    env: 'UPSTREAM_MAX_CONCURRENT',
    type: 'integer',
    default: 64,
    min: 1,
    max: 10000,
    description:
      'Requests to one gateway running at once on one replica (also the size of its connection pool).',
  },
  {
    key: 'upstream.queue',
    perGateway: true,
    env: 'UPSTREAM_QUEUE',
    type: 'integer',
    default: 128,
    min: 0,
    max: 100000,
    description: 'Requests to one gateway waiting for a slot; more are refused at once.',
  },
  {
    key: 'upstream.queueTimeoutMs',
    perGateway: true,
    env: 'UPSTREAM_QUEUE_TIMEOUT_MS',
    type: 'integer',
    default: 10000,
    min: 10,
    max: 3600000,
    description: 'Longest wait for a slot.',
  },
  {
    key: 'upstream.retries',
    perGateway: true,
    env: 'UPSTREAM_RETRIES',
    type: 'integer',
    default: 2,
    min: 0,
    max: 10,
    description:
      'Retries of idempotent reads (lists, reads, `initialize`, `ping`) after a connection failure; `tools/call` is never retried.',
  },
  {
    key: 'upstream.retryBackoffMs',
    perGateway: true,
    env: 'UPSTREAM_RETRY_BACKOFF_MS',
    type: 'integer',
    default: 100,
    min: 1,
    max: 60000,
    description: 'First retry wait; doubles, with jitter.',
  },
  {
    key: 'upstream.eraTtlSeconds',
    env: 'UPSTREAM_ERA_TTL_SECONDS',
    type: 'integer',
    default: 3600,
    min: 1,
    max: 604800,
    description:
      "How long an upstream's [era](#upstreams-of-both-eras) verdict (2025 or 2026-07-28) holds before it is probed again (1–604800).",
  },
  {
    key: 'mcp.inputRoundTtlSeconds',
    env: 'MCP_INPUT_ROUND_TTL_SECONDS',
    type: 'integer',
    default: 600,
    min: 1,
    max: 86400,
    description:
      "How long a 2026-07-28 client has to answer an input round: the round's `requestState` expires, and a call [parked](#between-the-eras) for it is cancelled upstream (1–86400).",
  },
  {
    key: 'upstream.messageLimitBytes',
    env: 'UPSTREAM_MESSAGE_LIMIT_BYTES',
    type: 'integer',
    default: 33554432,
    min: 65536,
    max: 1073741824,
    description:
      "Largest message an upstream may send (one JSON body, SSE event or stdio line). A larger one fails that exchange as the upstream's protocol error.",
  },
  {
    key: 'stdio.maxProcesses',
    env: 'STDIO_MAX_PROCESSES',
    type: 'integer',
    default: 50,
    min: 1,
    max: 10000,
    description:
      'Stdio processes one replica runs at most, spares included. At the limit a spare gives way; with none left, a new session gets a clear error.',
  },
  {
    key: 'stdio.warmProcesses',
    env: 'STDIO_WARM_PROCESSES',
    type: 'integer',
    default: 1,
    min: 0,
    max: 100,
    description:
      'Spare processes kept started per stdio gateway, so a new session does not wait for a cold start (`0`: start on demand).',
  },
  {
    key: 'stdio.idleSeconds',
    env: 'STDIO_IDLE_SECONDS',
    type: 'integer',
    default: 600,
    min: 1,
    max: 604800,
    description:
      "A stdio gateway's spares end after this long without a new session; the next session starts one cold and the pool warms again.",
  },
  {
    key: 'mcp.sessionTtlSeconds',
    env: 'MCP_SESSION_TTL_SECONDS',
    type: 'integer',
    default: 86400,
    min: 60,
    max: 2592000,
    description:
      'An MCP session idle this long ends (404 afterwards); expired sessions are removed every few minutes.',
  },
  {
    key: 'mcp.maxSessionsPerPrincipal',
    type: 'integer',
    default: 1000,
    min: 0,
    max: 1000000,
    description:
      "MCP sessions (2025 revisions, and the HTTP+SSE transport's) one principal (a user or token) holds at once, on all replicas together. Opening one more ends the principal's least recently used sessions (by use, to the minute): their next request gets 404, and their clients open new ones. A replica counts again each time it has opened a hundredth of the cap more for the principal, so the principal may hold that many more between counts. Each session costs its replica about 13 KiB and a row until it ends or idles out. `0`: no cap.",
  },
  {
    key: 'http.shutdownGraceSeconds',
    env: 'SHUTDOWN_GRACE_SECONDS',
    type: 'integer',
    default: 20,
    min: 0,
    max: 3600,
    description:
      "On SIGTERM or SIGINT: how long the stopping replica lets requests in flight finish (it reports itself not ready at once), before it ends its event streams, which clients resume elsewhere. Keep it under the pod's termination grace period (30 s in the manifests).",
  },
  {
    key: 'mcp.pageSize',
    env: 'MCP_PAGE_SIZE',
    type: 'integer',
    default: 500,
    min: 1,
    max: 10000,
    description: 'Tools per `tools/list` page.',
  },
  {
    key: 'mcp.toolSearch',
    env: 'MCP_TOOL_SEARCH',
    type: 'boolean',
    default: false,
    description:
      'Deferred [tool search](#tool-search) on the gateway-wide `/mcp` (virtual servers have their own `toolSearch` setting).',
  },
  {
    key: 'mcp.toolSearchAlwaysLoaded',
    env: 'MCP_TOOL_SEARCH_ALWAYS_LOADED',
    type: 'names',
    default: [],
    description:
      'Comma-separated virtual names that `/mcp` keeps listed when tool search is on; names of no current tool are ignored.',
  },
  {
    key: 'embeddings.queryTimeoutMs',
    env: 'EMBEDDINGS_QUERY_TIMEOUT_MS',
    type: 'integer',
    default: 300,
    min: 10,
    max: 60000,
    description:
      "How long a search waits for its query's vector before it ranks without the provider.",
  },
  {
    key: 'embeddings.indexTimeoutMs',
    env: 'EMBEDDINGS_INDEX_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 100,
    max: 600000,
    description: 'How long one request for a batch of 64 tool vectors may take.',
  },
  {
    key: 'events.redisCommandTimeoutMs',
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    type: 'integer',
    default: 1000,
    min: 50,
    max: 60000,
    description:
      'A Redis command unanswered this long fails and its connection is reset; connections are also checked with PING every 2 s, so a partition is noticed in seconds.',
  },
  {
    key: 'events.redisConnectTimeoutMs',
    env: 'REDIS_CONNECT_TIMEOUT_MS',
    type: 'integer',
    default: 3000,
    min: 100,
    max: 60000,
    description: 'How long connecting to Redis may take before the attempt is retried.',
  },
  {
    key: 'events.publishTimeoutMs',
    env: 'EVENT_PUBLISH_TIMEOUT_MS',
    type: 'integer',
    default: 1000,
    min: 0,
    max: 60000,
    description:
      'How long a request that changed something waits for the event bus (Redis or `LISTEN/NOTIFY`) to take its event. Past it, or as soon as the bus is known to be away, the request is answered anyway and the event waits in a queue.',
  },
  {
    key: 'events.queueMaxBytes',
    env: 'EVENT_QUEUE_MAX_BYTES',
    type: 'integer',
    default: 16777216,
    min: 0,
    max: 1073741824,
    description:
      'Events kept per replica while the bus is away. Past it they are dropped, and once the bus is back the other replicas drop every cache instead.',
  },
  {
    key: 'events.resyncWhileDownSeconds',
    env: 'EVENT_RESYNC_WHILE_DOWN_SECONDS',
    type: 'integer',
    default: 15,
    min: 0,
    max: 86400,
    description:
      'While a replica hears nothing from Redis, it drops every cache this often (only while PostgreSQL answers), so what it serves is never older than this. `0`: only once Redis is back.',
  },
  {
    key: 'rateLimitStore.timeoutMs',
    env: 'RATE_LIMIT_TIMEOUT_MS',
    type: 'integer',
    default: 1000,
    min: 10,
    max: 60000,
    description:
      'How long a call waits for the rate-limit counters (Redis, or PostgreSQL without `REDIS_URL`) before the fallback decides.',
  },
  {
    key: 'rateLimitStore.failClosed',
    env: 'RATE_LIMIT_FAIL_CLOSED',
    type: 'boolean',
    default: false,
    description:
      '`true`: while the counters cannot be reached, calls under a limit are refused (503 / JSON-RPC internal error) instead of counted per replica.',
  },
  {
    key: 'rateLimitStore.fallbackReplicas',
    env: 'RATE_LIMIT_FALLBACK_REPLICAS',
    type: 'integer',
    default: 1,
    min: 1,
    max: 1000,
    description:
      "While the counters cannot be reached, each replica allows a limit's points divided by this (rounded up). Set it to your replica count to keep the total near the limit; `1` lets each replica allow the full limit.",
  },
  {
    key: 'http.bodyLimitBytes',
    env: 'BODY_LIMIT_BYTES',
    type: 'integer',
    default: 4194304,
    min: 1024,
    max: 268435456,
    description:
      'Largest accepted request body on every endpoint; larger ones get 413 naming the limit.',
  },
  {
    key: 'http.jsonMaxDepth',
    env: 'JSON_MAX_DEPTH',
    type: 'integer',
    default: 64,
    min: 8,
    max: 1000,
    description:
      'How deep any JSON Portico parses may nest: MCP, legacy SSE, REST and OAuth bodies, and every message an upstream sends (8–1000). Deeper client bodies get 400 naming the limit.',
  },
  {
    key: 'auth.oidcJwksCacheSeconds',
    env: 'OIDC_JWKS_CACHE_SECONDS',
    type: 'integer',
    default: 300,
    min: 1,
    max: 86400,
    description:
      "How long the provider's signing keys are kept before they are fetched again (a key rotated out stops working after this); a token naming an unknown key fetches them at once, at most every 30 seconds.",
  },
  {
    key: 'oauthClientMetadata.enabled',
    env: 'OAUTH_CIMD_ENABLED',
    type: 'boolean',
    default: true,
    description:
      'Accept (and advertise) MCP clients that name themselves by the https URL of their [Client ID Metadata Document](#client-id-metadata-documents) instead of registering. `false`: registration only.',
  },
  {
    key: 'oauthClientMetadata.maxBytes',
    env: 'OAUTH_CIMD_MAX_BYTES',
    type: 'integer',
    default: 5120,
    min: 1024,
    max: 1048576,
    description:
      "The most of a client metadata document Portico reads (1024–1048576); a longer one is refused. 5 KiB is the draft's recommendation.",
  },
  {
    key: 'oauthClientMetadata.timeoutMs',
    env: 'OAUTH_CIMD_TIMEOUT_MS',
    type: 'integer',
    default: 5000,
    min: 100,
    max: 60000,
    description:
      'How long fetching one client metadata document may take, connection to last byte (100–60000).',
  },
  {
    key: 'oauthClientMetadata.maxCacheSeconds',
    env: 'OAUTH_CIMD_MAX_CACHE_SECONDS',
    type: 'integer',
    default: 86400,
    min: 0,
    max: 604800,
    description:
      'The longest a fetched client metadata document is used before it is fetched again, whatever its `Cache-Control` or `Expires` say (0–604800; `0`: at every use). A document that says neither is kept an hour.',
  },
  {
    key: 'audit.arguments',
    env: 'AUDIT_ARGUMENTS',
    type: 'enum',
    values: ['none', 'digest', 'full'],
    default: 'digest',
    description:
      'How much of the arguments of an MCP call the [audit trail](#audit-trail) keeps: `none`, `digest` (SHA-256 of their canonical JSON) or `full` (the digest and the arguments, with secret-named fields cut out).',
  },
  {
    key: 'audit.flushIntervalMs',
    env: 'AUDIT_FLUSH_INTERVAL_MS',
    type: 'integer',
    default: 1000,
    min: 50,
    max: 60000,
    description:
      'How often each replica writes its buffered audit entries (50–60000). A crash (not a clean stop) loses at most this much of the trail.',
  },
  {
    key: 'audit.retentionDays',
    env: 'AUDIT_RETENTION_DAYS',
    type: 'integer',
    default: 90,
    min: 0,
    max: 36500,
    description:
      'Audit entries older than this are deleted (checked hourly by every replica); `0` keeps them for ever.',
  },
  {
    key: 'registry.maxBytes',
    env: 'MCP_REGISTRY_MAX_BYTES',
    type: 'integer',
    default: 4194304,
    min: 1024,
    max: 268435456,
    description:
      'Bytes read from an MCP Registry for one search, show or import, all its pages together, counted while they stream in.',
  },
  {
    key: 'registry.pageSize',
    env: 'MCP_REGISTRY_PAGE_SIZE',
    type: 'integer',
    default: 30,
    min: 1,
    max: 100,
    description: 'Registry entries asked for per page, and accepted in one.',
  },
  {
    key: 'registry.maxPages',
    env: 'MCP_REGISTRY_MAX_PAGES',
    type: 'integer',
    default: 10,
    min: 1,
    max: 1000,
    description: 'Registry pages followed by one search.',
  },
  {
    key: 'registry.timeoutMs',
    env: 'MCP_REGISTRY_TIMEOUT_MS',
    type: 'integer',
    default: 10000,
    min: 100,
    max: 300000,
    description: 'One registry request, from connecting to the last byte.',
  },
];
