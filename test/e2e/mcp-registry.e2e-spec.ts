import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildProgram } from '../../src/cli/program';
import { RegistryFixture, recordedEntry } from '../fixtures/mcp-registry-server';
import { STDIO_SERVERS } from '../fixtures/stdio-servers';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, pageSession, type TestUser } from '../support/identities';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { serverToken } from '../support/tokens';

const WEATHER_SECRET = 'Bearer weather-secret-1234';
const HYBRID_KEY = 'hybrid-key-5678';
const AIRTABLE_KEY = 'pat-airtable-9012';

/** An upstream on the older HTTP+SSE transport that answers only with the X-API-Key header. */
async function startSseUpstream(apiKey: string) {
  const transports = new Map<string, SSEServerTransport>();
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers['x-api-key'] !== apiKey || req.headers['x-region'] !== 'us-east-1') {
      res.writeHead(401).end();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      const server = new Server({ name: 'hybrid', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'region', inputSchema: { type: 'object' } }],
      }));
      void server.connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && transport) {
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

interface ImportResult {
  outcome: string;
  changes: { field: string; before: string | null; after: string | null }[];
  gateway: {
    id: string;
    url: string | null;
    transport: string;
    command: string | null;
    args: string[] | null;
    envNames: string[] | null;
    authType: string;
    toolCount: number;
    status: string;
    registry: { url: string; serverName: string; version: string } | null;
  };
}

interface RegistryAnswer {
  servers: {
    server: { name: string; version: string; remotes: { type: string; url: string }[] };
    _meta: Record<string, Record<string, unknown>>;
  }[];
  metadata: { nextCursor?: string; count: number };
}

describe('The MCP Registry, both ways', () => {
  let t: TestApp;
  let registry: RegistryFixture;
  let weather: UpstreamFixture;
  let hybrid: Awaited<ReturnType<typeof startSseUpstream>>;
  let good: string;
  let launches: string;
  const path = process.env.PATH;

  beforeAll(async () => {
    weather = await startUpstream({
      name: 'weather',
      tools: [echoTool('forecast', 'weather')],
      requiredHeaders: { authorization: WEATHER_SECRET },
    });
    hybrid = await startSseUpstream(HYBRID_KEY);
    registry = await RegistryFixture.start({
      entries: [
        recordedEntry('airtable-mcp-server-1.7.2'),
        recordedEntry('remote-weather'),
        recordedEntry('hybrid-mcp'),
        recordedEntry('cyphrex-mcp'),
      ],
      remoteUrls: {
        'https://{host}/mcp': 'http://{host}/mcp',
        'https://mcp.anonymous.modelcontextprotocol.io/sse': hybrid.url,
      },
    });
    good = `${registry.origin}/good`;
    // `npx` on STDIO_COMMANDS is the one on PATH: here a stand-in that records how it was launched
    // and runs an MCP server from node_modules, so nothing is downloaded.
    const bin = mkdtempSync(join(tmpdir(), 'portico-npx-'));
    launches = join(bin, 'launches');
    writeFileSync(
      join(bin, 'npx'),
      `#!/bin/sh\necho "$* key=$AIRTABLE_API_KEY" >> ${launches}\nexec node ${STDIO_SERVERS.memory}\n`,
    );
    chmodSync(join(bin, 'npx'), 0o755);
    process.env.PATH = `${bin}:${path}`;
    t = await startTestApp({
      publicUrl: true,
      env: {
        STDIO_COMMANDS: 'npx',
        STDIO_WARM_PROCESSES: '0',
        MCP_REGISTRIES: ['good', 'huge', 'bad-json', 'loop', 'invalid']
          .map((mode) => `${registry.origin}/${mode}`)
          .join(','),
        MCP_REGISTRY_MAX_BYTES: String(1024 * 1024),
        MCP_REGISTRY_MAX_PAGES: '5',
      },
    });
  });

  afterAll(async () => {
    process.env.PATH = path;
    await t?.close();
    await Promise.all([registry?.close(), weather?.close(), hybrid?.close()]);
  });

  const importing = (body: Record<string, unknown>, status = 200) =>
    t.api().post('/api/v1/mcp-registry/import').send(body).expect(status);

  it('lists the configured registries and searches one, shape-checked', async () => {
    const listed = await t.api().get('/api/v1/mcp-registry').expect(200);
    expect(listed.body.registries).toHaveLength(5);
    const found = await t
      .api()
      .get('/api/v1/mcp-registry/servers')
      .query({ registry: good, search: 'weather' })
      .expect(200);
    expect(
      found.body.servers.map((entry: { server: { name: string } }) => entry.server.name),
    ).toEqual(['io.github.user/remote-weather']);
    const one = await t
      .api()
      .get(
        `/api/v1/mcp-registry/servers/${encodeURIComponent('io.github.user/remote-weather')}/versions/latest`,
      )
      .expect(200);
    expect(one.body._meta['io.modelcontextprotocol.registry/official'].isLatest).toBe(true);
    await t
      .api()
      .get(
        `/api/v1/mcp-registry/servers/${encodeURIComponent('io.github.nobody/none')}/versions/latest`,
      )
      .expect(404);
  });

  it('fetches only configured registries', async () => {
    const refused = await t
      .api()
      .get('/api/v1/mcp-registry/servers')
      .query({ registry: 'http://169.254.169.254/latest' })
      .expect(422);
    expect(refused.body.detail).toMatch(/is not one of the configured registries/);
    expect(registry.requests.some((url) => url.includes('latest/v0.1'))).toBe(false);
  });

  it('imports a streamable-http remote: URL variable filled, the required header stored encrypted', async () => {
    const missing = await importing(
      {
        registry: good,
        name: 'io.github.user/remote-weather',
        variables: { host: new URL(weather.url).host },
      },
      422,
    );
    expect(missing.body.detail).toBe("The header 'Authorization' is required: give its value.");
    const { body } = (await importing({
      registry: good,
      name: 'io.github.user/remote-weather',
      variables: { host: new URL(weather.url).host },
      headers: { Authorization: WEATHER_SECRET },
    })) as { body: ImportResult };
    expect(body.outcome).toBe('created');
    expect(body.gateway).toMatchObject({
      url: weather.url,
      transport: 'streamable-http',
      authType: 'headers',
      status: 'healthy',
      toolCount: 1,
      registry: { url: good, serverName: 'io.github.user/remote-weather', version: '2.1.0' },
    });
    expect(JSON.stringify(body)).not.toContain('weather-secret');
    const stored: { auth_secret: string }[] = await t.app
      .get(DataSource)
      .query('SELECT auth_secret FROM gateway WHERE id = $1', [body.gateway.id]);
    expect(stored[0]!.auth_secret).not.toContain('weather-secret');
  });

  it('asks an operator whose re-import moves a gateway holding credentials for its headers again', async () => {
    const gateway = (
      (await t.api().get('/api/v1/gateways').expect(200)).body.items as {
        id: string;
        url: string;
      }[]
    ).find((each) => each.url === weather.url);
    const team = await createTeam(t, 'Movers');
    const operator = await createUser(t, 'mo', 'operator', [team]);
    await t.api().patch(`/api/v1/gateways/${gateway!.id}`).send({ teamId: team }).expect(200);
    // Another server, which records what it is sent.
    const heard: (string | undefined)[] = [];
    const elsewhere = createServer((req, res) => {
      heard.push(req.headers.authorization);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const reimport = (body: Record<string, unknown>, status: number) =>
      request(t.baseUrl)
        .post('/api/v1/mcp-registry/import')
        .set('Authorization', `Bearer ${operator.token}`)
        .send({
          registry: good,
          name: 'io.github.user/remote-weather',
          variables: { host },
          confirm: true,
          ...body,
        })
        .expect(status);
    try {
      const refused = await reimport({}, 422);
      expect(refused.body.errors).toEqual([
        {
          field: 'headers',
          messages: [
            'the gateway holds credentials and this import moves it to another url: give its headers again to send them there',
          ],
        },
      ]);
      expect((await t.api().get(`/api/v1/gateways/${gateway!.id}`).expect(200)).body.url).toBe(
        weather.url,
      );
      const moved = await reimport({ headers: { Authorization: 'Bearer her-own' } }, 200);
      expect(moved.body).toMatchObject({
        outcome: 'updated',
        gateway: { url: `http://${host}/mcp` },
      });
      expect(heard.length).toBeGreaterThan(0);
      expect(heard).not.toContain(WEATHER_SECRET);
    } finally {
      await importing({
        registry: good,
        name: 'io.github.user/remote-weather',
        variables: { host: new URL(weather.url).host },
        headers: { Authorization: WEATHER_SECRET },
        confirm: true,
      });
      await t.api().patch(`/api/v1/gateways/${gateway!.id}`).send({ teamId: null }).expect(200);
      elsewhere.close();
    }
  });

  it('imports an sse remote with its required and defaulted headers', async () => {
    const { body } = (await importing({
      registry: good,
      name: 'io.modelcontextprotocol.anonymous/hybrid-mcp',
      headers: { 'X-API-Key': HYBRID_KEY },
    })) as { body: ImportResult };
    expect(body.gateway).toMatchObject({
      url: hybrid.url,
      transport: 'sse',
      status: 'healthy',
      toolCount: 1,
    });
  });

  it('refuses a package whose command is not on the allowlist, and an operator, before anything runs', async () => {
    const docker = await importing(
      {
        registry: good,
        name: 'io.github.domdomegg/airtable-mcp-server',
        package: 1,
        env: { AIRTABLE_API_KEY: AIRTABLE_KEY },
      },
      422,
    );
    expect(docker.body).toMatchObject({
      code: 'gateway.stdio_command_not_allowed',
      detail: "The command 'docker' is not on STDIO_COMMANDS (npx).",
    });
    const mcpb = await importing(
      { registry: good, name: 'io.github.domdomegg/airtable-mcp-server', package: 2 },
      422,
    );
    expect(mcpb.body.detail).toMatch(/registry type 'mcpb', which Portico does not launch/);
    const none = await importing(
      { registry: good, name: 'io.github.getcyphrex/cyphrex-mcp', package: 0 },
      422,
    );
    expect(none.body.detail).toBe(
      "'io.github.getcyphrex/cyphrex-mcp' has no package 0 (it has 0).",
    );
    const team = await createTeam(t, 'Importers');
    const operator = await createUser(t, 'olga', 'operator', [team]);
    const refused = await request(t.baseUrl)
      .post('/api/v1/mcp-registry/import')
      .set('Authorization', `Bearer ${operator.token}`)
      .send({
        registry: good,
        name: 'io.github.domdomegg/airtable-mcp-server',
        env: { AIRTABLE_API_KEY: AIRTABLE_KEY },
      })
      .expect(403);
    expect(refused.body.detail).toMatch(/Only admins may create or edit a stdio gateway/);
    const gateways = await t.api().get('/api/v1/gateways').expect(200);
    expect(gateways.body.total).toBe(2);
  });

  it('imports an npm package as a stdio upstream on the allowlist, its env stored encrypted', async () => {
    const { body } = (await importing({
      registry: good,
      name: 'io.github.domdomegg/airtable-mcp-server',
      env: { AIRTABLE_API_KEY: AIRTABLE_KEY },
    })) as { body: ImportResult };
    expect(body.gateway).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'airtable-mcp-server@1.7.2'],
      envNames: ['AIRTABLE_API_KEY'],
      status: 'healthy',
    });
    expect(body.gateway.toolCount).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain(AIRTABLE_KEY);
    expect(readFileSync(launches, 'utf8')).toContain(
      `-y airtable-mcp-server@1.7.2 key=${AIRTABLE_KEY}`,
    );
  });

  it('shows what a re-import of a new version changes, and applies it on confirmation', async () => {
    registry.publish(recordedEntry('airtable-mcp-server-1.7.3'));
    const shown = (await importing({
      registry: good,
      name: 'io.github.domdomegg/airtable-mcp-server',
    })) as { body: ImportResult };
    expect(shown.body.outcome).toBe('changes');
    expect(shown.body.changes).toEqual([
      { field: 'version', before: '1.7.2', after: '1.7.3' },
      {
        field: 'packages',
        before: expect.stringContaining('npm airtable-mcp-server@1.7.2') as string,
        after: expect.stringContaining('npm airtable-mcp-server@1.7.3') as string,
      },
      {
        field: 'args',
        before: '["-y","airtable-mcp-server@1.7.2"]',
        after: '["-y","airtable-mcp-server@1.7.3"]',
      },
    ]);
    expect(shown.body.gateway.args).toEqual(['-y', 'airtable-mcp-server@1.7.2']);
    expect(shown.body.gateway.registry?.version).toBe('1.7.2');

    const applied = (await importing({
      registry: good,
      name: 'io.github.domdomegg/airtable-mcp-server',
      confirm: true,
    })) as { body: ImportResult };
    expect(applied.body.outcome).toBe('updated');
    expect(applied.body.gateway).toMatchObject({
      args: ['-y', 'airtable-mcp-server@1.7.3'],
      envNames: ['AIRTABLE_API_KEY'],
      registry: { version: '1.7.3' },
    });
    // The stored secret was kept, and reaches the new launch.
    await t.api().post(`/api/v1/gateways/${applied.body.gateway.id}/sync`).expect(200);
    expect(readFileSync(launches, 'utf8')).toContain(
      `-y airtable-mcp-server@1.7.3 key=${AIRTABLE_KEY}`,
    );
    const again = (await importing({
      registry: good,
      name: 'io.github.domdomegg/airtable-mcp-server',
    })) as { body: ImportResult };
    expect(again.body).toMatchObject({ outcome: 'unchanged', changes: [] });
  });

  it('drives search, show and import from the CLI', async () => {
    const run = async (...args: string[]) => {
      const written: string[] = [];
      const write = jest
        .spyOn(process.stdout, 'write')
        .mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
      try {
        await buildProgram().parseAsync([
          'node',
          'portico',
          'registry',
          ...args,
          '--url',
          t.baseUrl,
        ]);
      } finally {
        write.mockRestore();
      }
      return written.join('');
    };
    process.env.PORTICO_TOKEN = t.token;
    try {
      expect(await run('search', 'cyphrex', '--registry', good)).toBe(
        'io.github.getcyphrex/cyphrex-mcp\t0.1.0\tBlockchain SSN for AI agents. MCP-native identity, behavior enforcement, and immutable audit trail.\n',
      );
      expect(
        await run('show', 'io.modelcontextprotocol.anonymous/hybrid-mcp', '--registry', good),
      ).toContain(
        `  remote 0: sse ${hybrid.url} headers: X-API-Key*, X-Region\n  remote 1: streamable-http https://mcp.anonymous.modelcontextprotocol.io/http\n  package 0: npm @example/hybrid-mcp-server@1.5.0\n`,
      );
      expect(
        await run('import', 'io.github.domdomegg/airtable-mcp-server', '--registry', good),
      ).toBe("Gateway 'airtable-mcp-server' is up to date\n");
    } finally {
      delete process.env.PORTICO_TOKEN;
    }
  });

  it('browses and imports from the admin pages, with CSRF', async () => {
    const session = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const page = (path: string) => request(t.baseUrl).get(path).set('Cookie', session.cookie);
    const list = await page(
      `/admin/mcp-registry?registry=${encodeURIComponent(good)}&search=hybrid`,
    ).expect(200);
    expect(list.text).toContain('io.modelcontextprotocol.anonymous/hybrid-mcp');
    expect(list.text).not.toContain('io.github.user/remote-weather');
    const entry = await page(
      `/admin/mcp-registry/entry?registry=${encodeURIComponent(good)}&name=${encodeURIComponent('io.modelcontextprotocol.anonymous/hybrid-mcp')}`,
    ).expect(200);
    expect(entry.text).toContain('<code>X-API-Key</code> (required)');
    const hostile = await page(
      `/admin/mcp-registry?registry=${encodeURIComponent(`${registry.origin}/bad-json`)}`,
    ).expect(502);
    expect(hostile.text).toContain('answered invalid JSON');
    const form = {
      registry: good,
      name: 'io.github.user/remote-weather',
      choice: 'remote:0',
      variables: `host=${new URL(weather.url).host}`,
    };
    await request(t.baseUrl)
      .post('/admin/mcp-registry/import')
      .set('Cookie', session.cookie)
      .type('form')
      .send(form)
      .expect(403);
    const imported = await request(t.baseUrl)
      .post('/admin/mcp-registry/import')
      .set('Cookie', session.cookie)
      .type('form')
      .send({ ...form, _csrf: session.csrf })
      .expect(303);
    expect(imported.headers.location).toMatch(/^\/admin\/gateways\/[0-9a-f-]{36}$/);
  });

  it.each([
    ['huge', /answered more than 1048576 bytes/],
    ['bad-json', /answered invalid JSON/],
    ['loop', /repeated the cursor 'round-and-round': its pages loop/],
    ['invalid', /servers\[0\]\.server\.description must be at most 100 characters/],
  ])(
    'a hostile registry (%s) is a clear 502, and the process carries on',
    async (mode, message) => {
      const answer = await t
        .api()
        .get('/api/v1/mcp-registry/servers')
        .query({ registry: `${registry.origin}/${mode}` })
        .expect(502);
      expect(answer.body.detail).toMatch(message);
      expect(answer.body.code).toBe('mcp_registry.registry_failed');
      await request(t.baseUrl).get('/healthz').expect(200);
      await t.api().get('/api/v1/mcp-registry/servers').query({ registry: good }).expect(200);
    },
  );

  it("makes a team's own gateway of a server another team imported, learning nothing of theirs, and one of racing imports", async () => {
    const [north, south] = [await createTeam(t, 'North'), await createTeam(t, 'South')];
    const [nora, sam] = [
      await createUser(t, 'nora', 'operator', [north]),
      await createUser(t, 'sam', 'operator', [south]),
    ];
    const importAs = (user: TestUser, body: Record<string, unknown>) =>
      request(t.baseUrl)
        .post('/api/v1/mcp-registry/import')
        .set('Authorization', `Bearer ${user.token}`)
        .send({ registry: good, name: 'io.github.user/remote-weather', ...body });
    const made: string[] = [];
    try {
      const theirs = await importAs(nora, {
        teamId: north,
        gatewayName: 'North weather',
        variables: { host: '127.0.0.1:9' },
        headers: { Authorization: 'Bearer north' },
      }).expect(200);
      expect(theirs.body.outcome).toBe('created');
      made.push(theirs.body.gateway.id as string);
      // Imports racing for South: one gateway, the others told so.
      const racing = await Promise.all(
        [1, 2, 3].map((n) =>
          importAs(sam, {
            teamId: south,
            gatewayName: `South weather ${n}`,
            variables: { host: `127.0.0.${n + 1}:9` },
            headers: { Authorization: 'Bearer south' },
          }),
        ),
      );
      // One is created; one that raced it is told so, one that came after it sees its changes.
      const created = racing.filter((answer) => answer.body.outcome === 'created');
      expect(created).toHaveLength(1);
      made.push(created[0]!.body.gateway.id as string);
      for (const answer of racing.filter((each) => each !== created[0])) {
        if (answer.status === 200)
          expect(answer.body).toMatchObject({
            outcome: 'changes',
            gateway: { id: created[0]!.body.gateway.id },
          });
        else expect(answer.body).toMatchObject({ status: 409, code: 'gateway.imported_already' });
        expect(JSON.stringify(answer.body)).not.toContain('North');
      }
      expect(created[0]!.body.gateway.id).not.toBe(theirs.body.gateway.id);
    } finally {
      for (const id of made) await t.api().delete(`/api/v1/gateways/${id}`).expect(204);
    }
  });

  describe('serving its own catalogue as a sub-registry', () => {
    let alice: TestUser;
    let bob: TestUser;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const red = await createTeam(t, 'Red');
      const blue = await createTeam(t, 'Blue');
      alice = await createUser(t, 'alice', 'member', [red]);
      bob = await createUser(t, 'bob', 'member', [blue]);
      for (const [name, teamId] of [
        ['Red Tools', red],
        ['Blue Tools', blue],
        ['Everyone', null],
      ] as const) {
        const created = await t
          .api()
          .post('/api/v1/servers')
          .send({ name, description: `${name} <b>`, teamId })
          .expect(201);
        ids[name] = created.body.id as string;
      }
    });

    const asking = (token: string | null, path = '/registry/v0.1/servers') => {
      const call = request(t.baseUrl).get(path);
      return token === null ? call : call.set('Authorization', `Bearer ${token}`);
    };
    const names = (body: RegistryAnswer) => body.servers.map((entry) => entry.server.name);

    it('lists to each caller only the servers it may use', async () => {
      const mine = (await asking(alice.token).expect(200)).body as RegistryAnswer;
      expect(names(mine)).toEqual(['1.0.0.127/everyone', '1.0.0.127/red-tools']);
      const theirs = (await asking(bob.token).expect(200)).body as RegistryAnswer;
      expect(names(theirs)).toEqual(['1.0.0.127/blue-tools', '1.0.0.127/everyone']);
      const all = (await asking(t.token).expect(200)).body as RegistryAnswer;
      expect(names(all)).toEqual([
        '1.0.0.127/blue-tools',
        '1.0.0.127/everyone',
        '1.0.0.127/red-tools',
      ]);
      const limited = (await asking(await serverToken(t, ids['Blue Tools']!)).expect(200))
        .body as RegistryAnswer;
      expect(names(limited)).toEqual(['1.0.0.127/blue-tools']);
      const anonymous = await asking(null).expect(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('serves entries of the official shape whose remote is the MCP endpoint', async () => {
      const { body } = (await asking(
        alice.token,
        `/registry/v0.1/servers/${encodeURIComponent('1.0.0.127/red-tools')}/versions/latest`,
      ).expect(200)) as { body: RegistryAnswer['servers'][number] };
      expect(body.server).toMatchObject({
        name: '1.0.0.127/red-tools',
        title: 'Red Tools',
        description: 'Red Tools <b>',
        remotes: [{ type: 'streamable-http', url: `${t.baseUrl}/servers/${ids['Red Tools']}/mcp` }],
      });
      expect(body._meta['io.modelcontextprotocol.registry/official']).toMatchObject({
        status: 'active',
        isLatest: true,
      });
      expect(body._meta['dev.portico/server']).toMatchObject({ serverId: ids['Red Tools'] });
      await asking(
        alice.token,
        `/registry/v0.1/servers/${encodeURIComponent(body.server.name)}/versions/${body.server.version}`,
      ).expect(200);
      await asking(
        alice.token,
        `/registry/v0.1/servers/${encodeURIComponent(body.server.name)}/versions/0.0.1`,
      ).expect(404);
      const versions = (
        await asking(
          alice.token,
          `/registry/v0.1/servers/${encodeURIComponent(body.server.name)}/versions`,
        ).expect(200)
      ).body as RegistryAnswer;
      expect(versions.servers).toHaveLength(1);
      // Another team's server is as missing as one that does not exist.
      await asking(
        alice.token,
        `/registry/v0.1/servers/${encodeURIComponent('1.0.0.127/blue-tools')}/versions/latest`,
      ).expect(404);
    });

    it('pages with cursor and limit, and filters by search and updated_since', async () => {
      const first = (await asking(t.token, '/registry/v0.1/servers?limit=2').expect(200))
        .body as RegistryAnswer;
      expect(names(first)).toEqual(['1.0.0.127/blue-tools', '1.0.0.127/everyone']);
      const second = (
        await asking(
          t.token,
          `/registry/v0.1/servers?limit=2&cursor=${first.metadata.nextCursor}`,
        ).expect(200)
      ).body as RegistryAnswer;
      expect(names(second)).toEqual(['1.0.0.127/red-tools']);
      expect(second.metadata.nextCursor).toBeUndefined();
      const searched = (await asking(t.token, '/registry/v0.1/servers?search=BLUE').expect(200))
        .body as RegistryAnswer;
      expect(names(searched)).toEqual(['1.0.0.127/blue-tools']);
      const later = (
        await asking(
          t.token,
          `/registry/v0.1/servers?updated_since=${new Date(Date.now() + 60_000).toISOString()}`,
        ).expect(200)
      ).body as RegistryAnswer;
      expect(later.servers).toEqual([]);
    });
  });
});
