import { randomBytes } from 'node:crypto';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { type OtlpReceiver, type OtlpSpan, startOtlpReceiver } from '../support/otlp-receiver';
import { type PorticoProcess, startPorticoProcess } from '../support/portico-process';
import { waitFor } from '../support/wait-for';

const SERVER = 2;
const CLIENT = 3;
const PASSWORD = 'tracing-test-password';

describe('OpenTelemetry tracing', () => {
  let receiver: OtlpReceiver;
  let upstream: UpstreamFixture;
  let portico: PorticoProcess;
  let baseUrl: string;
  const upstreamTraceparents: string[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = await startUpstream({
      name: 'traced',
      tools: [
        {
          definition: { name: 'work', inputSchema: { type: 'object' } },
          handler: (_args, extra) => {
            upstreamTraceparents.push(String(extra.requestInfo?.headers.traceparent ?? ''));
            return { content: [{ type: 'text', text: 'done' }] };
          },
        },
      ],
    });
    portico = await startPorticoProcess({
      ADMIN_PASSWORD: PASSWORD,
      AUDIT_FLUSH_INTERVAL_MS: '100',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'portico-test',
    });
    baseUrl = portico.baseUrl;
  }, 90_000);

  afterAll(async () => {
    await portico?.stop();
    await upstream?.close();
    await receiver?.close();
  });

  it('carries one trace from the client through Portico to the upstream', async () => {
    const login = await fetch(`${baseUrl}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    const { accessToken: token } = (await login.json()) as { accessToken: string };
    const gateway = await fetch(`${baseUrl}/api/v1/gateways`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Traced', url: upstream.url }),
    });
    expect(gateway.status).toBe(201);
    const mcp = `${baseUrl}/mcp`;
    const init = await postMcp(mcp, token, initializeRequest());
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    await (
      await postMcp(mcp, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)
    ).text();

    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const call = await postMcp(
      mcp,
      token,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'traced-work', arguments: {} },
      },
      { ...session, traceparent: `00-${traceId}-${clientSpanId}-01` },
    );
    expect(await call.text()).toContain('done');

    const spans = await waitFor(() => {
      const trace = receiver.spans.filter((span) => span.traceId === traceId);
      return trace.some((span) => span.name === 'upstream tools/call') ? trace : false;
    }, 'the spans of the traced call');
    const server = spans.find((span) => span.kind === SERVER);
    expect(server?.parentSpanId).toBe(clientSpanId);
    const mcpSpan = spans.find((span) => span.name === 'mcp tools/call');
    expect(mcpSpan).toBeDefined();
    const ancestors = (span: OtlpSpan): string[] => {
      const parent = spans.find((other) => other.spanId === span.parentSpanId);
      return parent ? [parent.spanId, ...ancestors(parent)] : [];
    };
    expect(ancestors(mcpSpan!)).toContain(server!.spanId);
    const upstreamSpan = spans.find((span) => span.name === 'upstream tools/call')!;
    expect(upstreamSpan.kind).toBe(CLIENT);
    expect(upstreamSpan.parentSpanId).toBe(mcpSpan!.spanId);
    expect(upstreamTraceparents.at(-1)).toBe(`00-${traceId}-${upstreamSpan.spanId}-01`);

    // Database work has spans too (the gateway's registration, among others).
    expect(
      receiver.spans.some((span) =>
        (span.attributes ?? []).some((attribute) => attribute.key.startsWith('db.')),
      ),
    ).toBe(true);

    // The audit entry of the call names the same trace.
    const audit = await waitFor(async () => {
      const response = await fetch(`${baseUrl}/api/v1/audit?tool=traced-work`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const page = (await response.json()) as { items: { traceId: string | null }[] };
      return page.items[0];
    }, 'the audit entry of the call');
    expect(audit.traceId).toBe(traceId);
  });
});
