import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive, STDIO_SERVERS } from '../fixtures/stdio-servers';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { roleToken } from '../support/tokens';
import { waitFor } from '../support/wait-for';

interface ProcessesBody {
  processes: { pid: number; state: 'warm' | 'in-use'; rssBytes: number | null }[];
  restarts: number;
  failures: number;
  lastExit: string | null;
  retryAt: string | null;
  stderr: string[];
}

const SECRET = 'stdio-secret-value-4711';

/** A client that answers sampling with its own name, and records what it was asked. */
async function samplingClient(t: TestApp, name: string) {
  const asked: string[] = [];
  const client = await connectClient(t.baseUrl, {
    token: t.token,
    name,
    capabilities: { sampling: {} },
  });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    asked.push((request.params.messages[0]!.content as { text: string }).text);
    return { role: 'assistant', model: name, content: { type: 'text', text: `from ${name}` } };
  });
  return { client, asked };
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text?: string }[])
    .map((part) => part.text ?? '')
    .join('\n');
}

interface Gateway {
  id: string;
  slug: string;
  status: string;
  lastError: string | null;
  toolCount: number;
  envNames: string[] | null;
}

describe('stdio upstreams', () => {
  let t: TestApp;
  const clients: Client[] = [];
  const pids = new Set<number>();

  const processes = async (id: string): Promise<ProcessesBody> => {
    const body = (await t.api().get(`/api/v1/gateways/${id}/processes`).expect(200))
      .body as ProcessesBody;
    for (const process of body.processes) pids.add(process.pid);
    return body;
  };
  /** The gateway once its sync has run (by default, once it has any status). */
  const synced = async (
    id: string,
    done = (gateway: Gateway) => gateway.status !== 'unknown',
  ): Promise<Gateway> => {
    let last = '';
    return waitFor(async () => {
      const body = (await t.api().get(`/api/v1/gateways/${id}`).expect(200)).body as Gateway;
      last = `${body.status}: ${body.lastError}`;
      return done(body) && body;
    }, `the sync of gateway ${id}`).catch((error: Error) => {
      throw new Error(`${error.message}; the gateway was ${last}`);
    });
  };
  /** Points a failing gateway at server-memory, and waits for it to be healthy. */
  const fixedWithMemoryServer = async (id: string) => {
    await t
      .api()
      .patch(`/api/v1/gateways/${id}`)
      .send({ args: [STDIO_SERVERS.memory] })
      .expect(200);
    return synced(id, (each) => each.status === 'healthy');
  };
  /** Registers a gateway; `answered` is what the registration itself answered. */
  const register = async (body: Record<string, unknown>) => {
    const answered = (await t.api().post('/api/v1/gateways').send(body).expect(201))
      .body as Gateway;
    return { ...(await synced(answered.id)), answered };
  };

  beforeAll(async () => {
    t = await startTestApp({
      env: { STDIO_COMMANDS: 'node', UPSTREAM_TIMEOUT_MS: '10000', STDIO_IDLE_SECONDS: '60' },
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await t.close();
  });

  it('refuses a command off the allowlist with 422, and a stdio gateway to non-admins with 403', async () => {
    const refused = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Shell', transport: 'stdio', command: 'sh', args: ['-c', 'echo hi'] })
      .expect(422);
    expect(refused.body).toMatchObject({ code: 'gateway.stdio_command_not_allowed' });
    expect(refused.body.detail).toContain("'sh' is not on STDIO_COMMANDS (node)");

    await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'No command', transport: 'stdio' })
      .expect(422);
    await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Both', transport: 'stdio', command: 'node', url: 'http://127.0.0.1:1/mcp' })
      .expect(422);

    const operator = await roleToken(t, t.token, 'operator');
    await t
      .api()
      .post('/api/v1/gateways')
      .set('Authorization', `Bearer ${operator}`)
      .send({ name: 'Sneaky', transport: 'stdio', command: 'node', args: ['-e', '1'] })
      .expect(403);
    const gateways = (await t.api().get('/api/v1/gateways').expect(200)).body as {
      total: number;
    };
    expect(gateways.total).toBe(0);
  });

  describe('server-everything', () => {
    let gateway: Awaited<ReturnType<typeof register>>;

    beforeAll(async () => {
      gateway = await register({
        name: 'Everything stdio',
        transport: 'stdio',
        command: 'node',
        args: [STDIO_SERVERS.everything, 'stdio'],
        env: { EVERYTHING_TOKEN: SECRET },
      });
    });

    it('syncs its tools, and never returns the environment', async () => {
      expect(gateway).toMatchObject({
        status: 'healthy',
        lastError: null,
        url: null,
        transport: 'stdio',
        command: 'node',
        args: [STDIO_SERVERS.everything, 'stdio'],
        envNames: ['EVERYTHING_TOKEN'],
      });
      expect(gateway.toolCount).toBeGreaterThan(5);
      const fetched = await t.api().get(`/api/v1/gateways/${gateway.id}`).expect(200);
      expect(JSON.stringify(fetched.body)).not.toContain(SECRET);
      expect(JSON.stringify(gateway.answered)).not.toContain(SECRET);
      // The first sync proved the command; a spare now waits for the first session.
      await waitFor(
        async () => (await processes(gateway.id)).processes.some((p) => p.state === 'warm'),
        'a warm spare',
      );
    });

    it('lists and calls its tools over MCP, with progress', async () => {
      const client = await connectClient(t.baseUrl, { token: t.token });
      clients.push(client);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining([`${gateway.slug}-echo`, `${gateway.slug}-get-sum`]),
      );
      const echo = await client.callTool({
        name: `${gateway.slug}-echo`,
        arguments: { message: 'over stdio' },
      });
      expect(text(echo)).toBe('Echo: over stdio');

      const progress: Progress[] = [];
      const long = await client.callTool(
        {
          name: `${gateway.slug}-trigger-long-running-operation`,
          arguments: { duration: 0.3, steps: 3 },
        },
        undefined,
        { onprogress: (update) => progress.push(update) },
      );
      expect(text(long)).toContain('completed');
      expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
    });

    it('passes the environment to the process', async () => {
      const client = await connectClient(t.baseUrl, { token: t.token });
      clients.push(client);
      const env = await client.callTool({ name: `${gateway.slug}-get-env`, arguments: {} });
      expect(text(env)).toContain(SECRET);
      // Portico's own secrets stay in Portico.
      expect(text(env)).not.toContain('ENCRYPTION_KEY');
      expect(text(env)).not.toContain('ADMIN_PASSWORD');
    });

    it('gives concurrent sessions processes of their own', async () => {
      const inUse = (await processes(gateway.id)).processes.filter((p) => p.state === 'in-use');
      // The two sessions above, each with its own process, beside the leader's watch.
      expect(new Set(inUse.map((p) => p.pid)).size).toBe(inUse.length);
      expect(inUse.length).toBeGreaterThanOrEqual(3);
      for (const process of inUse) expect(process.rssBytes).toBeGreaterThan(1024 * 1024);
    });

    it('reports a killed process clearly, then serves the session from a new one', async () => {
      const inUse = async () =>
        (await processes(gateway.id)).processes
          .filter((p) => p.state === 'in-use')
          .map((p) => p.pid);
      const earlier = new Set(await inUse());
      const client = await connectClient(t.baseUrl, { token: t.token });
      clients.push(client);
      const echo = (message: string) =>
        client.callTool({ name: `${gateway.slug}-echo`, arguments: { message } });
      expect(text(await echo('before'))).toBe('Echo: before');
      // This session's process is the one in use now that was not before it started (not the
      // newest pid: the leader's watch may have been restarted after it).
      const mine = (await inUse()).filter((pid) => !earlier.has(pid));
      expect(mine).toHaveLength(1);
      process.kill(mine[0]!, 'SIGKILL');
      await expect(echo('during')).rejects.toThrow(
        /stdio process ended: the process was ended by SIGKILL/,
      );
      expect(text(await echo('after'))).toBe('Echo: after');
      const status = await processes(gateway.id);
      expect(status.restarts).toBeGreaterThanOrEqual(1);
      expect(status.lastExit).toBe('the process was ended by SIGKILL');
    });

    it('keeps the process’s stderr, secrets cut out', async () => {
      const status = await processes(gateway.id);
      expect(status.stderr.some((line) => line.includes('started: node'))).toBe(true);
      expect(JSON.stringify(status)).not.toContain(SECRET);
    });
  });

  it('sends each session’s sampling to that session only, from a process of its own', async () => {
    const gateway = await register({
      name: 'Sampler',
      transport: 'stdio',
      command: 'node',
      args: [STDIO_SERVERS.sampler],
    });
    expect(gateway).toMatchObject({ status: 'healthy' });
    const alice = await samplingClient(t, 'alice');
    const bob = await samplingClient(t, 'bob');
    clients.push(alice.client, bob.client);
    const name = `${gateway.slug}-sample`;
    const [a, b] = await Promise.all([
      alice.client.callTool({ name, arguments: { prompt: 'for alice' } }),
      bob.client.callTool({ name, arguments: { prompt: 'for bob' } }),
    ]);
    const [, alicePid] = /^sampled from alice in (\d+)$/.exec(text(a)) ?? [];
    const [, bobPid] = /^sampled from bob in (\d+)$/.exec(text(b)) ?? [];
    expect(alicePid).toBeDefined();
    expect(bobPid).toBeDefined();
    expect(alicePid).not.toBe(bobPid);
    expect(alice.asked).toEqual(['for alice']);
    expect(bob.asked).toEqual(['for bob']);
  });

  it('serves server-filesystem on a temporary directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-fs-'));
    writeFileSync(join(dir, 'hello.txt'), 'hello from the filesystem');
    const gateway = await register({
      name: 'Files',
      transport: 'stdio',
      command: 'node',
      args: [STDIO_SERVERS.filesystem, dir],
    });
    expect(gateway).toMatchObject({ status: 'healthy', lastError: null });
    const client = await connectClient(t.baseUrl, { token: t.token });
    clients.push(client);
    const read = await client.callTool({
      name: `${gateway.slug}-read_text_file`,
      arguments: { path: join(dir, 'hello.txt') },
    });
    expect(text(read)).toBe('hello from the filesystem');
    const outside = await client.callTool({
      name: `${gateway.slug}-read_text_file`,
      arguments: { path: '/etc/hostname' },
    });
    expect(outside.isError).toBe(true);
  });

  it('serves server-memory, its file where the environment says', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'portico-memory-')), 'memory.jsonl');
    const gateway = await register({
      name: 'Memory',
      transport: 'stdio',
      command: 'node',
      args: [STDIO_SERVERS.memory],
      env: { MEMORY_FILE_PATH: file },
    });
    expect(gateway).toMatchObject({ status: 'healthy' });
    const client = await connectClient(t.baseUrl, { token: t.token });
    clients.push(client);
    await client.callTool({
      name: `${gateway.slug}-create_entities`,
      arguments: {
        entities: [{ name: 'Portico', entityType: 'gateway', observations: ['runs stdio'] }],
      },
    });
    const graph = await client.callTool({ name: `${gateway.slug}-read_graph`, arguments: {} });
    expect(text(graph)).toContain('runs stdio');
    expect(readFileSync(file, 'utf8')).toContain('Portico');
  });

  it('reports a command that exits at once, backs off, and recovers once fixed', async () => {
    const started = Date.now();
    const gateway = await register({
      name: 'Exits',
      transport: 'stdio',
      command: 'node',
      args: ['-e', 'console.error("cannot start: missing config"); process.exit(3)'],
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(gateway.status).toBe('unreachable');
    expect(gateway.lastError).toContain('the process exited with code 3');
    const status = await processes(gateway.id);
    expect(status.failures).toBe(1);
    expect(status.stderr.some((line) => line.includes('cannot start: missing config'))).toBe(true);

    const fixed = await fixedWithMemoryServer(gateway.id);
    expect(fixed.toolCount).toBeGreaterThan(0);
  });

  it('reports a process that prints non-JSON at once, secrets cut out, then recovers', async () => {
    const started = Date.now();
    const gateway = await register({
      name: 'Chatty',
      transport: 'stdio',
      command: 'node',
      args: ['-e', 'console.log("Server ready " + process.env.TOKEN); setInterval(() => {}, 1000)'],
      env: { TOKEN: SECRET },
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(gateway.status).toBe('failing');
    expect(gateway.lastError).toContain('not JSON-RPC');
    expect(gateway.lastError).toContain('Server ready');
    expect(gateway.lastError).not.toContain(SECRET);

    const fixed = await fixedWithMemoryServer(gateway.id);
    expect(fixed.envNames).toEqual(['TOKEN']);
  });

  it('refuses a tool whose schema nests 3,000 deep alone, and serves the other', async () => {
    const gateway = await register({
      name: 'Deep',
      transport: 'stdio',
      command: 'node',
      args: [STDIO_SERVERS.deepSchema],
    });
    expect(gateway).toMatchObject({ status: 'healthy', toolCount: 1 });
    const report = (await t.api().get(`/api/v1/gateways/${gateway.id}`).expect(200)).body
      .lastSyncReport as { added: string[]; conflicts: { name: string; reason: string }[] };
    expect(report.added).toEqual(['plain']);
    expect(report.conflicts).toEqual([
      { name: 'deep', reason: expect.stringContaining('past the limit (JSON_MAX_DEPTH 64') },
    ]);
    const client = await connectClient(t.baseUrl, { token: t.token });
    clients.push(client);
    expect(text(await client.callTool({ name: 'deep-plain', arguments: {} }))).toBe('called plain');
  });

  it('switches a gateway between HTTP and stdio, each needing its own fields', async () => {
    const gateway = await register({
      name: 'Switch',
      transport: 'stdio',
      command: 'node',
      args: [STDIO_SERVERS.memory],
      env: { KEEP: 'x' },
    });
    const bad = await t
      .api()
      .patch(`/api/v1/gateways/${gateway.id}`)
      .send({ transport: 'streamable-http' })
      .expect(422);
    expect(JSON.stringify(bad.body)).toContain('url is required unless transport is stdio');
    const http = (
      await t
        .api()
        .patch(`/api/v1/gateways/${gateway.id}`)
        .send({ transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' })
        .expect(200)
    ).body as Record<string, unknown>;
    expect(http).toMatchObject({
      transport: 'streamable-http',
      url: 'http://127.0.0.1:9/mcp',
      command: null,
      args: null,
      envNames: null,
      status: 'unreachable',
    });
    await t.api().patch(`/api/v1/gateways/${gateway.id}`).send({ transport: 'stdio' }).expect(422);
    const back = (
      await t
        .api()
        .patch(`/api/v1/gateways/${gateway.id}`)
        .send({ transport: 'stdio', command: 'node', args: [STDIO_SERVERS.memory] })
        .expect(200)
    ).body as Record<string, unknown>;
    expect(back).toMatchObject({ url: null, command: 'node', envNames: [] });
    await synced(gateway.id, (each) => each.status === 'healthy');
  });

  it('ends every stdio process when Portico shuts down', async () => {
    expect(pids.size).toBeGreaterThan(3);
    const alive = [...pids].filter(processAlive);
    expect(alive.length).toBeGreaterThan(0);
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await t.close();
    for (const pid of alive) expect(processAlive(pid)).toBe(false);
    t = await startTestApp();
  });
});
