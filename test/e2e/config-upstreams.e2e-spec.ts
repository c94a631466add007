import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CatalogueReader } from '../../src/sync/catalogue.reader';
import { STDIO_SERVERS } from '../fixtures/stdio-servers';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const ENV_SECRET = 'stdio-env-secret-value-3';
const CLIENT_SECRET = 'oauth-client-secret-value-4';

interface ApplyBody {
  plan: string;
  changes: { action: string; kind: string; name: string; fields: { field: string }[] }[];
}

/** Stdio and OAuth upstreams in the configuration document, with their secrets by reference. */
describe('configuration as code: stdio and OAuth gateways', () => {
  let app: TestApp;
  const folder = mkdtempSync(join(tmpdir(), 'portico-config-files-'));

  const document = (extra: object = {}) => ({
    apiVersion: 'portico/v1',
    gateways: [
      {
        name: 'Files',
        transport: 'stdio',
        command: 'node',
        args: [STDIO_SERVERS.filesystem, folder],
        env: { FILES_TOKEN: { fromEnv: 'CONFIG_E2E_FILES_TOKEN' } },
        ...extra,
      },
      {
        name: 'Linear',
        url: 'http://127.0.0.1:9/mcp',
        enabled: false,
        auth: {
          type: 'oauth',
          mode: 'per-user',
          clientId: 'portico',
          clientSecret: { fromEnv: 'CONFIG_E2E_CLIENT_SECRET' },
          scope: 'read',
        },
      },
    ],
  });

  beforeAll(async () => {
    process.env.CONFIG_E2E_FILES_TOKEN = ENV_SECRET;
    process.env.CONFIG_E2E_CLIENT_SECRET = CLIENT_SECRET;
    app = await startTestApp({ env: { STDIO_COMMANDS: 'node', UPSTREAM_TIMEOUT_MS: '10000' } });
  });

  afterAll(async () => {
    delete process.env.CONFIG_E2E_FILES_TOKEN;
    delete process.env.CONFIG_E2E_CLIENT_SECRET;
    await app.close();
  });

  async function apply(body: object): Promise<ApplyBody> {
    const response = await app.api().put('/api/v1/config').send(body);
    expect(response.status).toBe(200);
    return response.body as ApplyBody;
  }

  it('launches a stdio gateway the document describes, and its tools answer', async () => {
    const result = await apply(document());
    expect(result.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create gateway Files',
      'create gateway Linear',
    ]);
    expect(result.plan).not.toContain(ENV_SECRET);
    expect(result.plan).not.toContain(CLIENT_SECRET);
    const gateways = (await app.api().get('/api/v1/gateways').expect(200)).body as {
      items: { name: string; status: string; toolCount: number; envNames: string[] | null }[];
    };
    const files = gateways.items.find((gateway) => gateway.name === 'Files')!;
    expect(files.envNames).toEqual(['FILES_TOKEN']);
    await waitFor(
      async () => {
        const { body } = await app.api().get('/api/v1/tools?q=list_directory').expect(200);
        return (body as { items: unknown[] }).items.length > 0;
      },
      'the stdio gateway synced',
      30_000,
    );
    const client = await connectClient(app.baseUrl, { token: app.token });
    try {
      const listed = await client.callTool({
        name: 'files-list_allowed_directories',
        arguments: {},
      });
      expect(JSON.stringify(listed.content)).toContain(folder);
    } finally {
      await client.close();
    }
  });

  it('applies the same document again as no change, and exports it without secret values', async () => {
    expect((await apply(document())).changes).toEqual([]);
    const exported = await app.api().get('/api/v1/config?format=yaml').expect(200);
    expect(exported.text).not.toContain(ENV_SECRET);
    expect(exported.text).not.toContain(CLIENT_SECRET);
    const { gateways } = parseYaml(exported.text) as { gateways: Record<string, unknown>[] };
    expect(gateways[0]).toEqual({
      name: 'Files',
      transport: 'stdio',
      command: 'node',
      args: [STDIO_SERVERS.filesystem, folder],
      env: { FILES_TOKEN: { fromEnv: 'FILES_FILES_TOKEN' } },
    });
    expect(gateways[1]).toMatchObject({
      name: 'Linear',
      auth: {
        type: 'oauth',
        mode: 'per-user',
        clientId: 'portico',
        clientSecret: { fromEnv: 'LINEAR_CLIENT_SECRET' },
        scope: 'read',
      },
    });
  });

  it('plans a changed environment value without showing it, and refuses a command off STDIO_COMMANDS', async () => {
    process.env.CONFIG_E2E_FILES_TOKEN = 'another-secret-value-5';
    const changed = await apply(document());
    expect(changed.changes).toEqual([
      expect.objectContaining({
        action: 'update',
        name: 'Files',
        fields: [expect.objectContaining({ field: 'env' })],
      }),
    ]);
    expect(changed.plan).not.toContain('another-secret-value-5');
    const refused = await app
      .api()
      .put('/api/v1/config')
      .send(document({ command: 'sh', args: ['-c', 'echo hi'] }))
      .expect(422);
    expect((refused.body as { detail: string }).detail).toContain(
      "the command 'sh' is not on STDIO_COMMANDS (node)",
    );
    const url = await app
      .api()
      .put('/api/v1/config')
      .send(document({ url: 'http://127.0.0.1:9/mcp' }))
      .expect(422);
    expect((url.body as { detail: string }).detail).toContain('url does not apply to stdio');
  });
});

describe("configuration as code: the syncs of a document's new gateways", () => {
  const WAIT_MS = 2000;
  let app: TestApp;
  /** Upstreams that never answer: each sync waits for its timeout. */
  const silent = createServer(() => undefined);

  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    app = await startTestApp({
      env: { UPSTREAM_TIMEOUT_MS: '3000' },
      settings: { syncChangeWaitMs: WAIT_MS },
    });
  });

  afterAll(async () => {
    await app.close();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('run four at a time, each waited for as a registration waits, not one after the other', async () => {
    const started = new Map<string, number>();
    const reader = app.app.get(CatalogueReader);
    const read = reader.read.bind(reader);
    jest.spyOn(reader, 'read').mockImplementation((gateway, signal) => {
      if (!started.has(gateway.slug)) started.set(gateway.slug, Date.now());
      return read(gateway, signal);
    });
    const port = (silent.address() as AddressInfo).port;
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    await app
      .api()
      .put('/api/v1/config')
      .send({
        apiVersion: 'portico/v1',
        gateways: names.map((name) => ({ name, url: `http://127.0.0.1:${port}/${name}/mcp` })),
      })
      .expect(200);
    expect([...started.keys()].sort()).toEqual(names);
    const times = [...started.values()].sort((x, y) => x - y);
    // Four syncs start at once (one after the other, each would start a whole wait after the
    // last); the fifth takes the turn of the first once it was waited for (not all at once).
    expect(times[3]! - times[0]!).toBeLessThan(WAIT_MS);
    expect(times[4]! - times[0]!).toBeGreaterThanOrEqual(WAIT_MS / 2);
  });
});
