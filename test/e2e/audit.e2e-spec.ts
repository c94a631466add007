import { connect } from 'node:net';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../../src/audit/audit-trail.service';
import { AuditService } from '../../src/audit/audit.service';
import { type AuditEntryResponseDto } from '../../src/audit/dto/audit-entry-response.dto';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { factories } from '../support/factories';
import {
  createTeam,
  createUser,
  pageSession,
  type TestUser,
  USER_PASSWORD,
} from '../support/identities';
import { connectClient } from '../support/mcp-client';
import { tableOf, textOf } from '../support/html-text';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface AuditPage {
  items: AuditEntryResponseDto[];
  nextCursor: string | null;
}

describe('Audit trail', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let client: Client;
  let operator: TestUser;
  let teamA: string;

  const audit = async (query: Record<string, string>, token = t.token): Promise<AuditPage> =>
    (
      await request(t.baseUrl)
        .get('/api/v1/audit')
        .query(query)
        .set('Authorization', `Bearer ${token}`)
        .expect(200)
    ).body as AuditPage;

  /** Waits for the entries the query should find (the trail is written every 100 ms here). */
  const entries = (query: Record<string, string>, count: number, token = t.token) =>
    waitFor(
      async () => {
        const page = await audit({ ...query, limit: '1000' }, token);
        return page.items.length >= count ? page.items : false;
      },
      `${count} audit entries for ${JSON.stringify(query)}`,
    );

  beforeAll(async () => {
    t = await startTestApp({
      env: { AUDIT_FLUSH_INTERVAL_MS: '100', AUDIT_ARGUMENTS: 'full' },
    });
    upstream = await startUpstream({
      name: 'github',
      tools: [
        echoTool('delete_repository', 'github'),
        {
          definition: { name: 'fails', inputSchema: { type: 'object' } },
          handler: () => ({ content: [{ type: 'text', text: 'no' }], isError: true }),
        },
      ],
    });
    const make = factories(t.app);
    await make.tools(await make.gateway({ name: 'GitHub', url: upstream.url }), [
      'delete_repository',
      'fails',
    ]);
    client = await connectClient(t.baseUrl, { token: t.token, name: 'audit-test-client' });
    teamA = await createTeam(t, 'Team A');
    operator = await createUser(t, 'olivia', 'operator', [teamA]);
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await upstream?.close();
  });

  it('answers "who called github-delete_repository, with what result"', async () => {
    await client.callTool({
      name: 'github-delete_repository',
      arguments: { repo: 'acme/site', token: 'ghp-secret-value-123' },
    });
    await client.callTool({ name: 'github-fails', arguments: {} });
    await expect(client.callTool({ name: 'github-nothing', arguments: {} })).rejects.toThrow();

    const [entry] = await entries({ tool: 'github-delete_repository' }, 1);
    expect(entry).toMatchObject({
      kind: 'mcp',
      action: 'tools/call',
      outcome: 'ok',
      username: 'admin',
      clientName: 'audit-test-client',
      gateway: 'github',
      target: 'github-delete_repository',
      arguments: { repo: 'acme/site', token: '[redacted]' },
    });
    expect(entry!.argumentsDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(entry!.durationMs).toBeGreaterThan(0);
    expect(entry!.requestId).toBeTruthy();

    const [failed] = await entries({ tool: 'github-fails' }, 1);
    expect(failed).toMatchObject({ outcome: 'tool_error', gateway: 'github' });
    const [unknown] = await entries({ tool: 'github-nothing' }, 1);
    expect(unknown).toMatchObject({ outcome: 'error', status: -32602, gateway: null });
    expect((await audit({ outcome: 'tool_error' })).items.map((e) => e.target)).toEqual([
      'github-fails',
    ]);
  });

  it('never stores a secret: not the tool argument, not a password, not a token value', async () => {
    const created = await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'ci', role: 'member', expiresInDays: 1 })
      .expect(201);
    await t.api().delete(`/api/v1/tokens/${created.body.id}`).expect(204);
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'admin', password: 'wrong-password-xyz' })
      .expect(401);
    await entries({ action: 'token.revoke' }, 1);
    await entries({ action: 'login', outcome: 'denied' }, 1);
    const rows: { row: string }[] = await t.app
      .get(DataSource)
      .query('SELECT row_to_json(a)::text AS row FROM audit_entry a');
    const all = rows.map((r) => r.row).join('\n');
    expect(all).toContain('github-delete_repository');
    for (const secret of [
      'ghp-secret-value-123',
      'wrong-password-xyz',
      USER_PASSWORD,
      created.body.token as string,
      t.token,
    ])
      expect(all).not.toContain(secret);
  });

  it('records logins, token creation and revocation', async () => {
    const [created] = await entries({ action: 'token.create' }, 1);
    expect(created).toMatchObject({ kind: 'token', outcome: 'ok', username: 'admin' });
    const [revoked] = await entries({ action: 'token.revoke' }, 1);
    expect(revoked!.target).toBe(created!.target);
    const logins = await entries({ kind: 'login', user: 'olivia' }, 1);
    expect(logins[0]).toMatchObject({ action: 'login', outcome: 'ok', teamIds: [teamA] });
    const [denied] = await entries({ action: 'login', outcome: 'denied' }, 1);
    expect(denied).toMatchObject({ username: 'admin', userId: null });
  });

  it('records every change through REST with its route, record and outcome, once', async () => {
    const team = await t.api().post('/api/v1/teams').send({ name: 'Team B' }).expect(201);
    await t.api().patch(`/api/v1/teams/${team.body.id}`).send({ description: 'x' }).expect(200);
    await request(t.baseUrl)
      .delete(`/api/v1/teams/${team.body.id}`)
      .set('Authorization', `Bearer ${operator.token}`)
      .expect(403);
    const changes = await entries({ tool: team.body.id as string }, 3);
    expect(changes.map((e) => [e.action, e.outcome, e.username])).toEqual([
      ['DELETE /api/v1/teams/:id', 'denied', 'olivia'],
      ['PATCH /api/v1/teams/:id', 'ok', 'admin'],
      ['POST /api/v1/teams', 'ok', 'admin'],
    ]);
    // The token routes are in the trail as token entries, not again as changes.
    expect((await audit({ action: 'POST /api/v1/tokens' })).items).toEqual([]);
  });

  it('records changes made through the admin pages', async () => {
    const { cookie, csrf } = await pageSession(t, 'olivia');
    await request(t.baseUrl)
      .post('/admin/logout')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf })
      .expect(303);
    const logins = await entries({ kind: 'login', user: 'olivia' }, 2);
    expect(logins[0]!.action).toBe('login');
    const [change] = await entries({ action: 'POST /admin/logout' }, 1);
    expect(change).toMatchObject({ kind: 'change', outcome: 'ok', username: 'olivia' });
  });

  it('lets an operator read only the entries of their teams', async () => {
    const mine = await entries({}, 1, operator.token);
    expect(mine.every((e) => e.username === 'olivia' || e.teamIds.includes(teamA))).toBe(true);
    expect(mine.some((e) => e.target === 'github-delete_repository')).toBe(false);
    const everything = await audit({ limit: '1000' });
    expect(everything.items.some((e) => e.target === 'github-delete_repository')).toBe(true);
    const member = await createUser(t, 'mo', 'member', [teamA]);
    await request(t.baseUrl)
      .get('/api/v1/audit')
      .set('Authorization', `Bearer ${member.token}`)
      .expect(403);
  });

  it('pages with a cursor, newest first, and exports NDJSON and CSV', async () => {
    // What earlier tests did is written first, so that no entry lands between the reads below.
    await t.app.get(AuditTrail).flush();
    const all = (await audit({ limit: '1000' })).items;
    expect(all.length).toBeGreaterThan(4);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = await audit({ limit: '2', ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.slice(0, all.length)).toEqual(all.map((e) => e.id));
    const times = all.map((e) => e.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);

    const ndjson = await t.api().get('/api/v1/audit?format=ndjson&kind=mcp').expect(200);
    expect(ndjson.headers['content-type']).toContain('application/x-ndjson');
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((e: AuditEntryResponseDto) => e.target)).toContain('github-delete_repository');
    const csv = await t.api().get('/api/v1/audit?format=csv&kind=mcp').expect(200);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toMatch(/^occurredAt,kind,action,outcome/);
    expect(rows).toHaveLength(lines.length + 1);
    await t.api().get('/api/v1/audit?cursor=bm9wZQ').expect(400);
    await t.api().get('/api/v1/audit?outcome=maybe').expect(422);
  });

  it('refuses times the database cannot hold, in filters and forged cursors, before any answer', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    const read = (query: Record<string, string>) => t.api().get('/api/v1/audit').query(query);
    const cursor = (text: string) => Buffer.from(text).toString('base64url');
    for (const at of ['2026-02-30T00:00:00Z', '2026-04-31T00:00:00Z', '0000-01-01T00:00:00Z'])
      await read({ cursor: cursor(`${at}|${id}`) }).expect(400);
    await read({ cursor: cursor(`2026-02-28T00:00:00Z|${id}|x`) }).expect(400);
    for (const format of ['json', 'csv'])
      await read({ format, from: '-100000-01-01T00:00:00Z' }).expect(422);
    await read({ cursor: cursor(`2026-02-28T00:00:00Z|${id}`) }).expect(200);
  });

  it('pages through entries of one millisecond, written to the microsecond by SQL', async () => {
    // All within one millisecond, an hour back: a cursor that kept milliseconds only would end
    // paging after the first page.
    const rows = await t.app.get(DataSource).query<{ id: string }[]>(
      `INSERT INTO audit_entry (id, occurred_at, kind, action, outcome, replica)
       SELECT ('00000000-0000-4000-8000-00000000000' || n)::uuid,
              date_trunc('milliseconds', now()) - interval '1 hour' + (10 - n) * interval '1 microsecond',
              'mcp', 'tools/call', 'ok', 'imported'
       FROM generate_series(1, 7) AS n RETURNING id`,
    );
    const hour = new Date(Date.now() - 3_600_000);
    const window = {
      from: new Date(hour.getTime() - 60_000).toISOString(),
      to: new Date(hour.getTime() + 60_000).toISOString(),
    };
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = await audit({ ...window, limit: '2', ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(rows.map((row) => row.id));
  });

  it('shows the trail on an admin page, filtered, with S. No., and exports it', async () => {
    const admin = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const page = await request(t.baseUrl)
      .get('/admin/audit')
      .query({ tool: 'github-delete_repository', outcome: 'ok' })
      .set('Cookie', admin.cookie)
      .expect(200);
    const table = tableOf(page.text, 'audit');
    expect(table.columns.slice(0, 3)).toEqual(['S. No.', 'Time', 'Who']);
    expect(table.rows).toHaveLength(1);
    expect(table.rows[0]).toEqual([
      '1',
      expect.any(String),
      'admin',
      'audit-test-client',
      'tools/call',
      'github-delete_repository',
      'github',
      'ok',
      expect.stringMatching(/ms$/),
      expect.stringMatching(/^[0-9a-f]{12}…$/),
      '',
    ]);
    const csv = await request(t.baseUrl)
      .get('/admin/audit/export')
      .query({ tool: 'github-delete_repository', format: 'csv' })
      .set('Cookie', admin.cookie)
      .expect(200);
    expect(csv.text.trim().split('\r\n')).toHaveLength(2);
    const invalid = await request(t.baseUrl)
      .get('/admin/audit?server=not-a-uuid')
      .set('Cookie', admin.cookie)
      .expect(200);
    expect(textOf(invalid.text)).toContain('No entries match these filters');

    const operatorPage = await pageSession(t, 'olivia');
    const theirs = await request(t.baseUrl)
      .get('/admin/audit')
      .set('Cookie', operatorPage.cookie)
      .expect(200);
    const rows = tableOf(theirs.text, 'audit').rows;
    expect(rows.some((row) => row[2] === 'olivia')).toBe(true);
    expect(rows.some((row) => row[5] === 'github-delete_repository')).toBe(false);
  });

  it('draws the last hour on the dashboard as inline SVG', async () => {
    const admin = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const page = await request(t.baseUrl).get('/admin').set('Cookie', admin.cookie).expect(200);
    const calls = Number(/<span id="calls-last-hour">(\d+)<\/span>/.exec(page.text)?.[1]);
    expect(calls).toBe(3);
    expect(/<span id="error-rate">([\d.]+)<\/span>/.exec(page.text)?.[1]).toBe('66.7');
    expect(page.text).toContain('<title>MCP calls per minute, last hour (UTC)</title>');
    expect(page.text).toContain('<title>Error rate per minute, last hour (UTC)</title>');
    expect(page.text).toMatch(/<text [^>]*>github-delete_repository — [\d.]+ ms p95<\/text>/);
    expect(page.text).not.toMatch(/<script[^>]+src="https?:/);
  });

  it('exposes HTTP histograms and upstream health at /metrics', async () => {
    const body = (await t.api().get('/metrics').expect(200)).text;
    expect(body).toMatch(
      /portico_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/audit",status="200"\} [1-9]/,
    );
    expect(body).toMatch(
      /portico_http_request_duration_seconds_count\{method="POST",route="\/mcp",status="200"\} [1-9]/,
    );
    expect(body).toContain('portico_upstream_up{gateway="github"} 1');
  });

  it('prunes entries older than AUDIT_RETENTION_DAYS', async () => {
    const dataSource = t.app.get(DataSource);
    await dataSource.query(
      `INSERT INTO audit_entry (id, occurred_at, kind, action, outcome, replica)
       VALUES (gen_random_uuid(), now() - interval '400 days', 'mcp', 'tools/call', 'ok', 'old')`,
    );
    expect(await t.app.get(AuditTrail).prune()).toBe(1);
    const [{ count }] = await dataSource.query(
      "SELECT count(*)::int AS count FROM audit_entry WHERE replica = 'old'",
    );
    expect(count).toBe(0);
  });

  it('records what PostgreSQL cannot store, from anyone, repaired, and holds back nothing after it', async () => {
    // Anonymous: a username with an unpaired surrogate, as JSON can carry it.
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .set('Content-Type', 'application/json')
      .send('{"username":"\\ud800mallory","password":"wrong-password"}')
      .expect(401);
    await client.callTool({
      name: 'github-delete_repository',
      arguments: { repo: 'acme/unstorable', ['note\uD800']: 'nul\u0000here' },
    });
    await client.callTool({ name: 'github-delete_repository', arguments: { repo: 'acme/after' } });
    const [denied] = await entries({ action: 'login', user: '\uFFFDmallory' }, 1);
    expect(denied).toMatchObject({ outcome: 'denied' });
    const repoOf = (entry: AuditPage['items'][number]) =>
      (entry.arguments as { repo?: string } | null)?.repo;
    const calls = await waitFor(async () => {
      const { items } = await audit({ tool: 'github-delete_repository', limit: '1000' });
      return items.some((entry) => repoOf(entry) === 'acme/after') ? items : false;
    }, 'the call after it');
    expect(calls.find((entry) => repoOf(entry) === 'acme/unstorable')?.arguments).toEqual({
      repo: 'acme/unstorable',
      'note\uFFFD': 'nulhere',
    });
  });

  it('answers a call whose entry cannot be recorded, and records the next', async () => {
    const trail = t.app.get(AuditTrail);
    const broken = jest.spyOn(trail, 'record').mockImplementation(() => {
      throw new Error('the trail is broken');
    });
    try {
      const answered = await client.callTool({
        name: 'github-delete_repository',
        arguments: { repo: 'acme/unrecorded' },
      });
      expect(answered.isError).toBeFalsy();
      // Recorded after the answer: both attempts (with arguments, then without) threw there.
      await waitFor(() => broken.mock.calls.length >= 2, 'the attempts to record the call');
    } finally {
      broken.mockRestore();
    }
    await client.callTool({
      name: 'github-delete_repository',
      arguments: { repo: 'acme/recorded' },
    });
    const repos = async () =>
      (await audit({ tool: 'github-delete_repository', limit: '1000' })).items.map(
        (entry) => (entry.arguments as { repo?: string } | null)?.repo,
      );
    await waitFor(async () => (await repos()).includes('acme/recorded'), 'the next entry');
    expect(await repos()).not.toContain('acme/unrecorded');
  });

  it('reads the trail for an export only as fast as the client takes it, and stops when it goes', async () => {
    const total = 30_000;
    await t.app.get(DataSource).query(
      `INSERT INTO audit_entry (id, occurred_at, kind, action, outcome, detail, replica)
       SELECT gen_random_uuid(), now() - interval '1 day' - n * interval '1 ms',
              'mcp', 'tools/call', 'ok', repeat('x', 500), 'bulk'
       FROM generate_series(1, ${total}) AS n`,
    );
    const service = t.app.get(AuditService);
    const all = service.all.bind(service);
    let read = 0;
    jest.spyOn(service, 'all').mockImplementation(async function* (...args) {
      for await (const entry of all(...args)) {
        read += 1;
        yield entry;
      }
    });
    const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    try {
      socket.write(
        `GET /api/v1/audit?format=ndjson HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n\r\n`,
      );
      // It never reads: the trail is read as far as the sockets' buffers take it, no further.
      socket.pause();
      await waitFor(() => read > 1000, 'the export to begin');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const stalledAt = read;
      expect(stalledAt).toBeLessThan(total / 2);
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(read).toBeLessThanOrEqual(stalledAt + 1000);
    } finally {
      socket.destroy();
      jest.restoreAllMocks();
    }
    // A client that reads gets all of it.
    const exported = await request(t.app.getHttpServer())
      .get('/api/v1/audit?format=ndjson&outcome=ok')
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
    expect(
      exported.text.split('\n').filter((line) => line.includes(`"detail":"${'x'.repeat(500)}"`))
        .length,
    ).toBe(total);
  });

  it("keeps what a person of two teams did on one team's server from the other team's operators", async () => {
    const teamB = await createTeam(t, 'Team Bee');
    const dual = await createUser(t, 'dana', 'member', [teamA, teamB]);
    const tools = await t.api().get('/api/v1/tools').query({ limit: 100 }).expect(200);
    const toolIds = tools.body.items
      .filter((tool: { name: string }) => tool.name === 'github-delete_repository')
      .map((tool: { id: string }) => tool.id);
    const serverOfB = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'B only', teamId: teamB, toolIds })
        .expect(201)
    ).body.id as string;
    const onB = await connectClient(t.baseUrl, {
      token: dual.token,
      path: `/servers/${serverOfB}/mcp`,
    });
    await onB.callTool({ name: 'github-delete_repository', arguments: { repo: 'b/secret' } });
    await onB.close();
    await t.app.get(AuditTrail).flush();
    expect(await entries({ server: serverOfB }, 1)).toHaveLength(1);
    const seenByA = await audit({ user: 'dana', limit: '1000' }, operator.token);
    expect(seenByA.items.filter((e) => e.action === 'tools/call')).toEqual([]);
    expect(seenByA.items.length).toBeGreaterThan(0);
  });
});
