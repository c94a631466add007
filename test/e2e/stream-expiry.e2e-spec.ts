import { DataSource } from 'typeorm';
import { TokenService } from '../../src/auth/token.service';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { rawListen } from '../support/modern-client';
import { openSse, type SseReader } from '../support/sse';
import { startTestApp, type TestApp } from '../support/test-app';

/** Long enough to open every stream with it, short enough to wait for. */
const SHORT_LIFETIME_S = 4;

/**
 * Reads the stream until it ends; the responses on it. (A list change may come meanwhile: a
 * notification, not an answer.)
 */
async function responsesUntilEnd(reader: SseReader): Promise<Record<string, unknown>[]> {
  const responses: Record<string, unknown>[] = [];
  for (
    let event = await reader.nextMessage(SHORT_LIFETIME_S * 1000 + 10_000);
    event;
    event = await reader.nextMessage(SHORT_LIFETIME_S * 1000 + 10_000)
  )
    if ('id' in event.message) responses.push(event.message);
  return responses;
}

describe('streams end when the credential that opened them expires', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  /** The admin's user id, which their login tokens name. */
  let adminId: string;
  /** An API token with the default lifetime (90 days, longer than one timer can wait). */
  let longLived: string;

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'expiry', tools: [echoTool('echo', 'expiry')] });
    t = await startTestApp();
    await t.api().post('/api/v1/gateways').send({ name: 'expiry', url: upstream.url }).expect(201);
    const created = await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'long-lived', role: 'admin' })
      .expect(201);
    ({ token: longLived, ownerId: adminId } = created.body as { token: string; ownerId: string });
  });

  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  /** A login token of the admin, issued as POST /api/v1/auth/token issues it, but short-lived. */
  const shortLogin = () =>
    t.app.get(TokenService).issueLogin(adminId, SHORT_LIFETIME_S).accessToken;

  /** A managed API token whose expiry is a few seconds ahead (the API counts lifetimes in days). */
  async function shortApiToken(): Promise<string> {
    const created = await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'short-lived', role: 'admin' })
      .expect(201);
    const { id, token } = created.body as { id: string; token: string };
    await t.app
      .get(DataSource)
      .query('UPDATE api_token SET expires_at = $1 WHERE id = $2', [
        new Date(Date.now() + SHORT_LIFETIME_S * 1000),
        id,
      ]);
    return token;
  }

  /** A 2026-07-28 `subscriptions/listen` for tool list changes, acknowledged. */
  async function listen(token: string): Promise<SseReader> {
    const { response, reader } = await rawListen(t.baseUrl, token, { toolsListChanged: true });
    expect(response.status).toBe(200);
    expect((await reader.nextMessage())?.message).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
    });
    return reader;
  }

  const sessionHeaders = (token: string, sessionId: string) => ({
    Authorization: `Bearer ${token}`,
    Accept: 'text/event-stream',
    'Mcp-Session-Id': sessionId,
  });

  /** A 2025 session opened with the token, and its GET stream, primed. */
  async function sessionStream(token: string): Promise<{ sessionId: string; reader: SseReader }> {
    const initialized = await postMcp(`${t.baseUrl}/mcp`, token, initializeRequest());
    expect(initialized.status).toBe(200);
    await initialized.text();
    const sessionId = initialized.headers.get('mcp-session-id')!;
    const { response, reader } = await openSse(`${t.baseUrl}/mcp`, {
      headers: sessionHeaders(token, sessionId),
    });
    expect(response.status).toBe(200);
    expect(await reader.next()).toMatchObject({ id: 'get.0', data: '' });
    return { sessionId, reader };
  }

  it('drops a listen and closes 2025 and HTTP+SSE streams at expiry; a long-lived credential’s stay open', async () => {
    const expiringListen = await listen(await shortApiToken());
    const loginToken = shortLogin();
    const expiringSession = await sessionStream(loginToken);
    const legacy = await openSse(`${t.baseUrl}/sse`, {
      headers: { Authorization: `Bearer ${loginToken}`, Accept: 'text/event-stream' },
    });
    expect(legacy.response.status).toBe(200);
    expect(await legacy.reader.next()).toMatchObject({ event: 'endpoint' });
    const lastingListen = await listen(longLived);
    const lastingSession = await sessionStream(longLived);

    // The listen drops without a result (a client still entitled listens again); the others end.
    expect(await responsesUntilEnd(expiringListen)).toEqual([]);
    expect(await responsesUntilEnd(expiringSession.reader)).toEqual([]);
    expect(await responsesUntilEnd(legacy.reader)).toEqual([]);

    // The expired token cannot reopen the session's stream; a fresh one of the same user resumes it.
    const refused = await fetch(`${t.baseUrl}/mcp`, {
      headers: sessionHeaders(loginToken, expiringSession.sessionId),
    });
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    const resumed = await openSse(`${t.baseUrl}/mcp`, {
      headers: { ...sessionHeaders(t.token, expiringSession.sessionId), 'Last-Event-ID': 'get.0' },
    });
    expect(resumed.response.status).toBe(200);
    resumed.reader.drop();

    // The long-lived credential's streams outlived the short ones: a list change still reaches them.
    const tools = await t.api().get('/api/v1/tools').expect(200);
    const tool = (tools.body.items as { id: string }[])[0]!;
    await t.api().patch(`/api/v1/tools/${tool.id}`).send({ enabled: false }).expect(200);
    try {
      expect((await lastingListen.nextMessage())?.message).toMatchObject({
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } },
      });
      expect((await lastingSession.reader.nextMessage())?.message).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });
    } finally {
      await t.api().patch(`/api/v1/tools/${tool.id}`).send({ enabled: true }).expect(200);
      lastingListen.drop();
      lastingSession.reader.drop();
    }
  }, 60_000);
});
