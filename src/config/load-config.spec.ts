import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../../test/support/temp-dir';
import { ConfigError, loadConfig } from './load-config';

describe('loadConfig', () => {
  const base = () => ({ DATA_DIR: tempDataDir() });

  it('has working defaults: embedded database under DATA_DIR', () => {
    const env = base();
    const config = loadConfig(env);
    expect(config.port).toBe(3000);
    expect(config.database).toEqual({ mode: 'embedded', dataDir: join(env.DATA_DIR, 'pgdata') });
    expect(config.toolNameSeparator).toBe('-');
    expect(config.allowedOrigins).toEqual(['http://localhost:3000']);
    expect(config.runMigrations).toBe(true);
    expect(config.passwordHashing).toEqual({ N: 2 ** 17, r: 8, p: 1 });
  });

  it('reads PASSWORD_HASH_COST as a power of two, 2^14 to 2^20', () => {
    expect(loadConfig({ ...base(), PASSWORD_HASH_COST: '15' }).passwordHashing.N).toBe(2 ** 15);
    for (const cost of ['13', '21', '16.5', 'high'])
      expect(() => loadConfig({ ...base(), PASSWORD_HASH_COST: cost })).toThrow(ConfigError);
  });

  it('leaves stdio off unless STDIO_COMMANDS lists commands, names or absolute paths only', () => {
    const off = loadConfig(base());
    expect(off.stdioCommands).toEqual([]);
    expect(off.stdioMaxProcesses).toBe(50);
    expect(off.stdioWarmProcesses).toBe(1);
    expect(off.stdioIdleSeconds).toBe(600);
    const on = loadConfig({
      ...base(),
      STDIO_COMMANDS: ' npx, node ,uvx,/usr/bin/node,npx',
      STDIO_MAX_PROCESSES: '8',
      STDIO_IDLE_SECONDS: '30',
    });
    expect(on.stdioCommands).toEqual(['npx', 'node', 'uvx', '/usr/bin/node']);
    expect(on.stdioMaxProcesses).toBe(8);
    expect(on.stdioIdleSeconds).toBe(30);
    for (const bad of ['sh -c', 'node;rm', '../bin/node'])
      expect(() => loadConfig({ ...base(), STDIO_COMMANDS: bad })).toThrow(ConfigError);
  });

  it('bounds parsed JSON by JSON_MAX_DEPTH and UPSTREAM_MESSAGE_LIMIT_BYTES, refusing bad values', () => {
    const defaults = loadConfig(base());
    expect(defaults.jsonMaxDepth).toBe(64);
    expect(defaults.upstreamMessageLimitBytes).toBe(32 * 1024 * 1024);
    const set = loadConfig({
      ...base(),
      JSON_MAX_DEPTH: '200',
      UPSTREAM_MESSAGE_LIMIT_BYTES: String(1024 * 1024),
    });
    expect(set.jsonMaxDepth).toBe(200);
    expect(set.upstreamMessageLimitBytes).toBe(1024 * 1024);
    for (const depth of ['7', '1001', 'deep', '64.5'])
      expect(() => loadConfig({ ...base(), JSON_MAX_DEPTH: depth })).toThrow(
        `Invalid configuration: JSON_MAX_DEPTH must be an integer from 8 to 1000 (got '${depth}')`,
      );
    expect(() => loadConfig({ ...base(), UPSTREAM_MESSAGE_LIMIT_BYTES: '1000' })).toThrow(
      ConfigError,
    );
  });

  it('reads how upstreams are guarded: breaker, call cap and queue, retries', () => {
    expect(loadConfig(base()).upstreamResilience).toEqual({
      failureThreshold: 5,
      firstCooldownMs: 500,
      cooldownMs: 10_000,
      maxConcurrent: 64,
      maxQueue: 128,
      queueTimeoutMs: 10_000,
      retry: { retries: 2, backoffMs: 100 },
    });
    const tuned = loadConfig({
      ...base(),
      UPSTREAM_BREAKER_FAILURES: '0',
      UPSTREAM_MAX_CONCURRENT: '8',
      UPSTREAM_QUEUE: '0',
      UPSTREAM_RETRIES: '0',
    }).upstreamResilience;
    expect(tuned).toMatchObject({ failureThreshold: 0, maxConcurrent: 8, maxQueue: 0 });
    expect(tuned.retry.retries).toBe(0);
    for (const [name, bad] of [
      ['UPSTREAM_MAX_CONCURRENT', '0'],
      ['UPSTREAM_BREAKER_COOLDOWN_MS', 'soon'],
      ['UPSTREAM_RETRIES', '11'],
    ])
      expect(() => loadConfig({ ...base(), [name!]: bad })).toThrow(
        new RegExp(`^Invalid configuration: ${name} `),
      );
  });

  it('generates JWT_SECRET and ENCRYPTION_KEY once and keeps them in DATA_DIR', () => {
    const env = base();
    const first = loadConfig(env);
    const second = loadConfig(env);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    expect(first.encryptionKey).toHaveLength(32);
    expect(readFileSync(join(env.DATA_DIR, 'jwt_secret'), 'utf8').trim()).toBe(first.jwtSecret);
  });

  it('does not write secrets that the environment provides', () => {
    const env = { ...base(), JWT_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'ab'.repeat(32) };
    loadConfig(env);
    expect(existsSync(join(env.DATA_DIR, 'jwt_secret'))).toBe(false);
    expect(existsSync(join(env.DATA_DIR, 'encryption_key'))).toBe(false);
  });

  it('reads PostgreSQL and in-memory database URLs', () => {
    expect(loadConfig({ ...base(), DATABASE_URL: 'postgres://u@h/db' }).database).toEqual({
      mode: 'postgres',
      url: 'postgres://u@h/db',
    });
    expect(loadConfig({ ...base(), DATABASE_URL: 'pglite://memory' }).database).toEqual({
      mode: 'embedded',
      dataDir: null,
    });
  });

  it('reads an in-memory database that starts as a copy of an existing backup file', () => {
    const env = base();
    const backup = join(env.DATA_DIR, 'backup 1.tar.gz');
    writeFileSync(backup, '');
    const url = `pglite://memory?from=${encodeURIComponent(backup)}`;
    expect(loadConfig({ ...env, DATABASE_URL: url }).database).toEqual({
      mode: 'embedded',
      dataDir: null,
      from: backup,
    });
    for (const from of ['backup.tar.gz', join(env.DATA_DIR, 'missing.tar.gz')])
      expect(() => loadConfig({ ...env, DATABASE_URL: `pglite://memory?from=${from}` })).toThrow(
        ConfigError,
      );
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['GATEWAY_TOOL_NAME_SEPARATOR', "'"],
    ['GATEWAY_TOOL_NAME_SEPARATOR', 'a b'],
    ['SYNC_INTERVAL_SECONDS', '-1'],
    ['UPSTREAM_TIMEOUT_MS', '1.5'],
    ['RUN_MIGRATIONS', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['ALLOWED_ORIGINS', '*'],
    ['ALLOWED_ORIGINS', 'ftp://x'],
    ['PUBLIC_URL', 'not a url'],
    ['REDIS_URL', 'http://x'],
    ['REDIS_NAMESPACE', 'a b'],
    ['REDIS_NAMESPACE', 'x'.repeat(65)],
    ['ENCRYPTION_KEY', 'short'],
    ['ADMIN_PASSWORD', 'short'],
    ['MCP_TOOL_SEARCH', 'sometimes'],
    ['MCP_TOOL_SEARCH_ALWAYS_LOADED', 'gateway-1-ok, not a name'],
    ['TRUSTED_PROXIES', '10.0.0.1, proxy.internal'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', '*'],
  ])('refuses %s=%s with a one-line message naming it', (name, value) => {
    const attempt = () => loadConfig({ ...base(), [name]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^Invalid configuration: ${name} `));
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('adds configured origins to the public URL', () => {
    const config = loadConfig({
      ...base(),
      PUBLIC_URL: 'https://portico.example.com/',
      ALLOWED_ORIGINS: 'https://a.example.com, https://b.example.com:8443/x',
    });
    expect(config.publicUrl).toBe('https://portico.example.com');
    expect(config.allowedOrigins).toEqual([
      'https://portico.example.com',
      'https://a.example.com',
      'https://b.example.com:8443',
    ]);
  });

  it('reads the configuration file settings, with no file by default', () => {
    const defaults = loadConfig(base());
    expect([defaults.configFile, defaults.configPrune, defaults.configSecretsDir]).toEqual([
      null,
      false,
      '/var/run/secrets',
    ]);
    const env = base();
    const file = join(env.DATA_DIR, 'portico.yaml');
    writeFileSync(file, 'apiVersion: portico/v1\n');
    const set = loadConfig({
      ...env,
      CONFIG_FILE: file,
      CONFIG_PRUNE: 'true',
      CONFIG_SECRETS_DIR: '/mnt/secrets/',
    });
    expect([set.configFile, set.configPrune, set.configSecretsDir]).toEqual([
      file,
      true,
      '/mnt/secrets',
    ]);
  });

  it('leaves tool search of /mcp off unless configured', () => {
    expect(loadConfig(base()).mcpToolSearch).toEqual({ enabled: false, alwaysLoaded: [] });
  });

  it('reads tool search of /mcp and its always-loaded names, trimmed and without duplicates', () => {
    const config = loadConfig({
      ...base(),
      MCP_TOOL_SEARCH: 'true',
      MCP_TOOL_SEARCH_ALWAYS_LOADED: ' gateway-1-get_time, github.search ,,gateway-1-get_time',
    });
    expect(config.mcpToolSearch).toEqual({
      enabled: true,
      alwaysLoaded: ['gateway-1-get_time', 'github.search'],
    });
  });

  it('accepts Client ID Metadata Documents by default, fetched bounded and never from loopback', () => {
    expect(loadConfig(base()).clientMetadataDocuments).toEqual({
      enabled: true,
      maxBytes: 5120,
      timeoutMs: 5000,
      maxCacheSeconds: 86_400,
      allowLoopback: false,
    });
    const tuned = loadConfig({
      ...base(),
      OAUTH_CIMD_ENABLED: 'false',
      OAUTH_CIMD_MAX_BYTES: '16384',
      OAUTH_CIMD_TIMEOUT_MS: '2000',
      OAUTH_CIMD_MAX_CACHE_SECONDS: '0',
    }).clientMetadataDocuments;
    expect(tuned).toMatchObject({
      enabled: false,
      maxBytes: 16_384,
      timeoutMs: 2000,
      maxCacheSeconds: 0,
    });
    expect(() => loadConfig({ ...base(), OAUTH_CIMD_MAX_BYTES: '100' })).toThrow(ConfigError);
  });

  it('allows fetching documents from loopback only for a Portico on loopback itself', () => {
    for (const publicUrl of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000'])
      expect(
        loadConfig({
          ...base(),
          PUBLIC_URL: publicUrl,
          OAUTH_CIMD_ALLOW_LOOPBACK: 'true',
        }).clientMetadataDocuments.allowLoopback,
      ).toBe(true);
    expect(() =>
      loadConfig({
        ...base(),
        PUBLIC_URL: 'https://portico.example.com',
        OAUTH_CIMD_ALLOW_LOOPBACK: 'true',
      }),
    ).toThrow(
      "Invalid configuration: OAUTH_CIMD_ALLOW_LOOPBACK may be true only when PUBLIC_URL is a loopback URL (development and tests) (got 'true')",
    );
  });

  it('trusts no proxy unless TRUSTED_PROXIES names it', () => {
    expect(loadConfig(base()).trustedProxies).toEqual([]);
    expect(
      loadConfig({ ...base(), TRUSTED_PROXIES: '10.0.0.7, 10.1.0.0/16, fd00::/8, loopback' })
        .trustedProxies,
    ).toEqual(['10.0.0.7', '10.1.0.0/16', 'fd00::/8', 'loopback']);
  });

  it('bounds the event bus and counts rate limits per replica when Redis is away, unless told to fail closed', () => {
    expect(loadConfig(base()).eventBus).toEqual({
      publishTimeoutMs: 1000,
      queueMaxBytes: 16 * 1024 * 1024,
      resyncWhileDownMs: 15_000,
      redisCommandTimeoutMs: 1000,
      redisConnectTimeoutMs: 3000,
    });
    expect(loadConfig(base()).rateLimitStore).toEqual({
      timeoutMs: 1000,
      failClosed: false,
      fallbackReplicas: 1,
    });
    const set = loadConfig({
      ...base(),
      EVENT_RESYNC_WHILE_DOWN_SECONDS: '0',
      RATE_LIMIT_FAIL_CLOSED: 'true',
      RATE_LIMIT_FALLBACK_REPLICAS: '3',
    });
    expect(set.eventBus.resyncWhileDownMs).toBe(0);
    expect(set.rateLimitStore).toMatchObject({ failClosed: true, fallbackReplicas: 3 });
    expect(() => loadConfig({ ...base(), REDIS_COMMAND_TIMEOUT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base(), RATE_LIMIT_FALLBACK_REPLICAS: '0' })).toThrow(ConfigError);
  });

  describe('the embeddings provider', () => {
    it('is off unless EMBEDDINGS_URL is set', () => {
      expect(loadConfig(base()).embeddings).toBeNull();
    });

    it('reads URL, model, key and budgets, keeping no trailing slash or credentials in the URL', () => {
      const config = loadConfig({
        ...base(),
        EMBEDDINGS_URL: 'https://user:pass@embed.example/v1/',
        EMBEDDINGS_MODEL: 'bge-small-en',
        EMBEDDINGS_API_KEY: 'sk-1',
        EMBEDDINGS_QUERY_TIMEOUT_MS: '150',
      });
      expect(config.embeddings).toEqual({
        url: 'https://embed.example/v1',
        model: 'bge-small-en',
        apiKey: 'sk-1',
        queryTimeoutMs: 150,
        indexTimeoutMs: 30_000,
      });
    });

    it.each([
      [{ EMBEDDINGS_URL: 'http://e/v1' }, /EMBEDDINGS_MODEL must be set with EMBEDDINGS_URL/],
      [{ EMBEDDINGS_MODEL: 'm' }, /EMBEDDINGS_MODEL needs EMBEDDINGS_URL/],
      [{ EMBEDDINGS_URL: 'ftp://e', EMBEDDINGS_MODEL: 'm' }, /EMBEDDINGS_URL must be an absolute/],
      [
        { EMBEDDINGS_URL: 'http://e', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_QUERY_TIMEOUT_MS: '0' },
        /EMBEDDINGS_QUERY_TIMEOUT_MS must be an integer from 10/,
      ],
    ])('refuses %j', (env, message) => {
      expect(() => loadConfig({ ...base(), ...env })).toThrow(message);
    });
  });
});
