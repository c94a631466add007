import { randomBytes } from 'node:crypto';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { echoTool } from '../fixtures/upstream-server';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver';
import { type PorticoProcess, startPorticoProcess } from '../support/portico-process';
import { waitFor } from '../support/wait-for';

const ADMIN_PASSWORD = 'logs-admin-password-5c1f';
const WRONG_PASSWORD = 'logs-wrong-password-77aa';
const USER_PASSWORD = 'logs-user-password-e93b';
const UPSTREAM_SECRET = 'upstream-bearer-secret-0f4d2a';

interface LogLine {
  level: string;
  msg?: string;
  requestId?: string;
  traceId?: string;
  req?: { method: string; path: string };
  res?: { statusCode: number };
}

describe('Structured logs', () => {
  let receiver: OtlpReceiver;
  let upstream: UpstreamFixture;
  let portico: PorticoProcess;
  const used: string[] = [ADMIN_PASSWORD, WRONG_PASSWORD, USER_PASSWORD, UPSTREAM_SECRET];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = await startUpstream({
      name: 'logged',
      tools: [echoTool('work', 'logged')],
      requiredHeaders: { authorization: `Bearer ${UPSTREAM_SECRET}` },
    });
    portico = await startPorticoProcess({
      ADMIN_PASSWORD,
      LOG_LEVEL: 'verbose',
      LOG_FORMAT: 'json',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  }, 90_000);

  afterAll(async () => {
    await portico?.stop();
    await upstream?.close();
    await receiver?.close();
  });

  it('writes JSON lines with request and trace ids, and never a credential it was given', async () => {
    const base = portico.baseUrl;
    const json = (token?: string) => ({
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    const login = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: json(),
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    used.push(accessToken);
    const refused = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: json(),
      body: JSON.stringify({ username: 'admin', password: WRONG_PASSWORD }),
    });
    expect(refused.status).toBe(401);
    const user = await fetch(`${base}/api/v1/users`, {
      method: 'POST',
      headers: json(accessToken),
      body: JSON.stringify({ username: 'lena', password: USER_PASSWORD, role: 'admin' }),
    });
    expect(user.status).toBe(201);
    const created = await fetch(`${base}/api/v1/tokens`, {
      method: 'POST',
      headers: json(accessToken),
      body: JSON.stringify({ name: 'ci', role: 'admin', expiresInDays: 1 }),
    });
    const { token: apiToken } = (await created.json()) as { token: string };
    used.push(apiToken);
    const gateway = await fetch(`${base}/api/v1/gateways`, {
      method: 'POST',
      headers: json(apiToken),
      body: JSON.stringify({
        name: 'Logged',
        url: upstream.url,
        auth: { type: 'bearer', token: UPSTREAM_SECRET },
      }),
    });
    expect(gateway.status).toBe(201);

    const mcp = `${base}/mcp`;
    const init = await postMcp(mcp, apiToken, initializeRequest());
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-06-18',
    };
    await init.text();
    const traceId = randomBytes(16).toString('hex');
    const call = await postMcp(
      mcp,
      apiToken,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'logged-work' } },
      { ...session, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    );
    expect(await call.text()).toContain('logged:work');

    const form = await fetch(`${base}/admin/login`);
    const cookies = form.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const pageLogin = await fetch(`${base}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
      body: new URLSearchParams({ _csrf: csrf, username: 'lena', password: USER_PASSWORD }),
    });
    expect(pageLogin.status).toBe(303);
    const session_cookie = pageLogin.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('portico_session='))!
      .split(';')[0]!;
    used.push(session_cookie.split('=')[1]!);
    expect((await fetch(`${base}/admin`, { headers: { cookie: session_cookie } })).status).toBe(
      200,
    );

    const lines = await waitFor(() => {
      const parsed = portico
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as LogLine);
      return parsed.some((line) => line.req?.path === '/admin' && line.res) ? parsed : false;
    }, 'the log line of the last request');

    const finished = lines.filter((line) => line.req && line.res);
    expect(finished.length).toBeGreaterThan(8);
    for (const line of finished) {
      expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
    }
    const mcpCall = finished.find((line) => line.req!.path === '/mcp' && line.traceId === traceId);
    expect(mcpCall).toMatchObject({ level: 'debug', res: { statusCode: 200 } });
    expect(finished.find((line) => line.res!.statusCode === 401)?.level).toBe('warn');

    await portico.stop();
    const all = portico.output();
    for (const secret of used) expect(all).not.toContain(secret);
  });
});
