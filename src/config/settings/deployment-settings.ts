import { type DeploymentSetting } from './setting';

/**
 * What a deployment must know before it starts, read from the environment only: where it
 * listens and is reached, its database and Redis, its secrets, its identity provider, what it
 * may launch or fetch, and where its logs and configuration document are.
 */
export const DEPLOYMENT_SETTINGS: readonly DeploymentSetting[] = [
  {
    env: 'PORT',
    default: '`3000`',
    description: 'HTTP port.',
  },
  {
    env: 'HOST',
    default: 'unset',
    description:
      'The address to listen on: an IP address (`127.0.0.1`, `::1`, `[::1]`) or a host name. Unset: every interface. `portico health` and the other CLI commands follow it (127.0.0.1 when unset or a wildcard).',
  },
  {
    env: 'PUBLIC_URL',
    default: '`http://localhost:$PORT`',
    description:
      'The URL clients reach Portico at, as an origin (no path). It builds `mcpUrl`, the OAuth issuer, resource URLs (RFC 8707 audiences) and redirect URLs, and is an allowed `Origin`. **Set it to the external https URL in production**: an `https` URL also makes every cookie `Secure`.',
  },
  {
    env: 'DATABASE_URL',
    default: 'unset',
    description:
      '`postgres://…` for PostgreSQL. Unset: embedded PostgreSQL (PGlite) persisted in `$DATA_DIR/pgdata`. `pglite://memory` keeps the embedded database in memory (demos, tests); `pglite://memory?from=/abs/path/backup.tar.gz` starts it as a copy of a `portico backup` file each time (the file is only read).',
  },
  {
    env: 'DATA_DIR',
    default: '`./data`',
    description: 'Embedded database, and generated secrets when they are not set.',
  },
  {
    env: 'RUN_MIGRATIONS',
    default: '`true`',
    description:
      'Run pending migrations at start-up. Set `false` on replicas when a migration Job runs them.',
  },
  {
    env: 'GATEWAY_TOOL_NAME_SEPARATOR',
    default: '`-`',
    description: 'Joins gateway slug and tool name; 1–8 characters of `A-Z a-z 0-9 _ . -`.',
  },
  {
    env: 'ADMIN_USERNAME',
    default: '`admin`',
    description:
      'The break-glass admin: a local admin that every start repairs (role admin, enabled, local) and that the API cannot demote, disable or delete.',
  },
  {
    env: 'ADMIN_PASSWORD',
    default: 'generated',
    description:
      "At least 8 characters. Unset on first start: generated and printed once. When set, it is the break-glass admin's password (changing it rotates the stored hash). Only a scrypt hash is stored.",
  },
  {
    env: 'JWT_SECRET',
    default: 'generated',
    description:
      'Signs login tokens, admin sessions, OAuth access tokens and the OAuth and SSO state carried by browsers. Unset: generated once into `$DATA_DIR/jwt_secret`. **Set it when running several replicas.** Rotating it ends every session and every login and OAuth access token (API tokens are not affected).',
  },
  {
    env: 'ENCRYPTION_KEY',
    default: 'generated',
    description:
      '32 bytes (64 hex characters or base64) for AES-256-GCM encryption of upstream credentials and OAuth client secrets. Unset: generated once into `$DATA_DIR/encryption_key`. **Set it when running several replicas, and back it up**: without it stored credentials cannot be read.',
  },
  {
    env: 'STDIO_COMMANDS',
    default: 'none',
    description:
      'Comma-separated commands that [stdio gateways](#stdio-gateways) may launch, exactly as a gateway names them (names looked up on `PATH`, or absolute paths), for example `npx,node,uvx`. Empty: stdio is off. Each is run without a shell.',
  },
  {
    env: 'MCP_REGISTRIES',
    default: 'none',
    description:
      'Comma-separated base URLs of the [MCP Registries](#the-mcp-registry) Portico may browse and import from, for example `https://registry.modelcontextprotocol.io`. Only these are fetched. `registry.maxBytes`, `registry.pageSize`, `registry.maxPages` and `registry.timeoutMs` bound them (see that section).',
  },
  {
    env: 'ALLOWED_ORIGINS',
    default: 'none',
    description:
      'Extra comma-separated origins allowed to call the MCP endpoints, beside `PUBLIC_URL` and localhost. `*` is refused.',
  },
  {
    env: 'ALLOWED_HOSTS',
    default: 'none',
    description:
      "Extra comma-separated `host[:port]` values accepted in the `Host` header, beside `PUBLIC_URL`'s host, the hosts of `ALLOWED_ORIGINS` and loopback (for example an in-cluster service name). Any other `Host` is refused with 403 (DNS rebinding) on every path but the probes `/healthz`, `/readyz` and `/metrics`.",
  },
  {
    env: 'EMBEDDINGS_URL',
    default: 'unset',
    description:
      'An OpenAI-compatible embeddings endpoint that [tool search](#embeddings-provider) adds to its ranking, for example `http://bge:8080/v1`. Unset: the embedded rankers work alone.',
  },
  {
    env: 'EMBEDDINGS_MODEL',
    default: 'unset',
    description: 'The model name sent to it; required with `EMBEDDINGS_URL`.',
  },
  {
    env: 'EMBEDDINGS_API_KEY',
    default: 'unset',
    description: 'Bearer token for it; never logged or returned.',
  },
  {
    env: 'REDIS_URL',
    default: 'unset',
    description:
      '`redis://…`: cross-replica notifications over Redis pub/sub instead of PostgreSQL `LISTEN/NOTIFY`.',
  },
  {
    env: 'REDIS_NAMESPACE',
    default: '`portico`',
    description:
      'What the Redis channel (`<namespace>:events`) and rate-limit keys start with: give each deployment that shares one Redis its own (1–64 of `A-Z a-z 0-9 _ . -`).',
  },
  {
    env: 'METRICS_TOKEN',
    default: 'unset',
    description:
      'A static bearer token (16+ characters) that may read `GET /metrics`, for Prometheus; admin tokens may too.',
  },
  {
    env: 'TRUSTED_PROXIES',
    default: 'none',
    description:
      'Comma-separated addresses, CIDR ranges or `loopback`, `linklocal`, `uniquelocal` of the reverse proxies in front of Portico. Only their `X-Forwarded-For` and `X-Forwarded-Proto` are believed; empty: the TCP peer is the client (so a client cannot pick its own address to dodge the login throttle). Example: `10.0.0.0/8` for an in-cluster ingress.',
  },
  {
    env: 'OIDC_ISSUER',
    default: 'unset',
    description:
      'An OpenID Connect provider (its issuer URL exactly as its discovery document says). Enables [its access tokens](#tokens-of-your-identity-provider) and, with `OIDC_CLIENT_ID`, [admin SSO](#single-sign-on-for-the-admin-pages).',
  },
  {
    env: 'OIDC_CLIENT_ID',
    default: 'unset',
    description:
      "Portico's client at the provider, for admin SSO (redirect URI `$PUBLIC_URL/admin/sso/callback`).",
  },
  {
    env: 'OIDC_CLIENT_SECRET',
    default: 'unset',
    description:
      'Its secret (confidential client, `client_secret_post`); unset for a public client (PKCE only).',
  },
  {
    env: 'OIDC_SCOPES',
    default: '`openid profile email`',
    description:
      'Scopes asked for at SSO; add the one that puts groups in the ID token if the provider needs one.',
  },
  {
    env: 'OIDC_AUDIENCE',
    default: 'none',
    description:
      "Comma-separated `aud` values that make one of the provider's access tokens good for every endpoint its person may use (the REST API included). Without one of these, a token's audience must be an MCP endpoint URL, to which it is then bound.",
  },
  {
    env: 'OIDC_USERNAME_CLAIM',
    default: '`preferred_username`',
    description: 'The claim that names a person (the subject when missing).',
  },
  {
    env: 'OIDC_GROUPS_CLAIM',
    default: '`groups`',
    description:
      "The claim that lists a person's groups (an array, or a space- or comma-separated string).",
  },
  {
    env: 'OIDC_ROLE_MAP',
    default: 'none',
    description:
      "`group=role,…`: groups that give the roles `admin`, `operator` or `member`; the highest applies. A leading `/` (Keycloak's full paths) is ignored.",
  },
  {
    env: 'OIDC_TEAM_MAP',
    default: 'none',
    description:
      '`group=Team name,…`: groups that make a person a member of teams; the teams are created at start-up if missing.',
  },
  {
    env: 'OIDC_DEFAULT_ROLE',
    default: 'unset',
    description: 'The role of a person in no mapped group. Unset: such a person is refused.',
  },
  {
    env: 'OIDC_LABEL',
    default: '`single sign-on`',
    description: 'The words on the login page\'s button: "Sign in with …".',
  },
  {
    env: 'OAUTH_CIMD_ALLOW_LOOPBACK',
    default: '`false`',
    description:
      'Also fetch client metadata documents from loopback addresses (`127.0.0.0/8`, `::1`): for development and tests only, refused at start-up unless `PUBLIC_URL` is itself a loopback URL. Private, link-local and other special-use addresses are never fetched.',
  },
  {
    env: 'LOG_LEVEL',
    default: '`log`',
    description: '`error`, `warn`, `log`, `debug` or `verbose`.',
  },
  {
    env: 'LOG_FORMAT',
    default: '`json`',
    description:
      '`json`: one JSON object per line (production). `pretty`: one readable line each (the default when `NODE_ENV=development`). See [Logs](#logs).',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: 'unset',
    description:
      "An OTLP/HTTP collector, for example `http://otel-collector:4318`: turns on [tracing](#tracing). Unset: the OpenTelemetry SDK is not even loaded. The SDK's other `OTEL_*` variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_TRACES_SAMPLER`, …) apply.",
  },
  {
    env: 'OTEL_SERVICE_NAME',
    default: '`portico`',
    description: 'The `service.name` of the spans.',
  },
  {
    env: 'CONFIG_FILE',
    default: 'unset',
    description:
      'A [configuration document](#configuration-as-code) applied at start-up (a mounted ConfigMap), once per change of the file or of a credential it names; replicas starting together apply it once. A file that does not apply stops the start.',
  },
  {
    env: 'CONFIG_PRUNE',
    default: '`false`',
    description:
      "With `CONFIG_FILE`: also delete what the file's sections no longer name (as `portico apply --prune`).",
  },
  {
    env: 'CONFIG_SECRETS_DIR',
    default: '`/var/run/secrets`',
    description:
      'The directory `fromFile` credential references may read (mounted Kubernetes secrets); relative paths start there, and paths that leave it are refused.',
  },
];
