import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startModernEverythingServer } from '../test/fixtures/modern-everything-server';
import { startUpstream } from '../test/fixtures/upstream-server';
import { startTestApp, type TestApp } from '../test/support/test-app';

// `npm run bench:translation`: what one translated round trip adds. A tool whose upstream asks
// the client to sample once, called (a) by a 2026-07-28 client through Portico on a 2025 upstream
// (the request parks; the round and its retry are two requests) against a 2025 client calling the
// same upstream directly (its sampling request rides the call's stream); and (b) by a 2025 client
// through Portico on a 2026-07-28 upstream (the round becomes a sampling request on the session)
// against a 2026-07-28 client calling that upstream directly (a round and a retry). Everything
// runs in this process on loopback, so read the differences, not the absolute figures.

const CALLS = Number(process.env.CALLS ?? 300);
const MODERN = '2026-07-28';
const SAMPLED = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'Paris' },
  model: 'bench',
};

async function median(call: () => Promise<unknown>): Promise<number> {
  for (let warm = 0; warm < 30; warm++) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function legacyClient(url: string, token?: string): Promise<LegacyClient> {
  const client = new LegacyClient(
    { name: 'bench', version: '1' },
    { capabilities: { sampling: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
  await client.connect(
    new LegacyTransport(new URL(url), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    }),
  );
  return client;
}

async function modernClient(url: string, token?: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'bench', version: '1' },
    { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('sampling/createMessage', () => Promise.resolve(SAMPLED));
  await client.connect(
    new ModernTransport(new URL(url), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    }),
  );
  return client;
}

async function nameOf(app: TestApp, gatewayId: string, original: string): Promise<string> {
  const tools = await app.api().get('/api/v1/tools').query({ gatewayId, limit: 500 });
  const items = (tools.body as { items: { name: string; originalName: string }[] }).items;
  return items.find((tool) => tool.originalName === original)!.name;
}

async function main(): Promise<void> {
  const old = await startUpstream({
    name: 'old',
    tools: [
      {
        definition: { name: 'summarize', inputSchema: { type: 'object', properties: {} } },
        handler: async (_args, extra) => {
          const sampled = await extra.sendRequest(
            {
              method: 'sampling/createMessage',
              params: {
                messages: [{ role: 'user', content: { type: 'text', text: 'Capital?' } }],
                maxTokens: 5,
              },
            },
            CreateMessageResultSchema,
          );
          return { content: [{ type: 'text', text: JSON.stringify(sampled.content) }] };
        },
      },
    ],
  });
  const modern = await startModernEverythingServer({ legacy: 'reject' });
  const app = await startTestApp({ env: { LOG_LEVEL: 'error', AUDIT_ARGUMENTS: 'none' } });
  try {
    const oldGateway = await app.api().post('/api/v1/gateways').send({ name: 'Old', url: old.url });
    const modernGateway = await app
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Modern', url: modern.url });
    const mcp = `${app.baseUrl}/mcp`;
    const idOf = (created: { body: unknown }) => (created.body as { id: string }).id;
    const summarize = await nameOf(app, idOf(oldGateway), 'summarize');
    const sampling = await nameOf(app, idOf(modernGateway), 'test_input_required_result_sampling');

    const direct2025 = await legacyClient(old.url);
    const viaModern = await modernClient(mcp, app.token);
    const direct2026 = await modernClient(modern.url);
    const via2025 = await legacyClient(mcp, app.token);

    const a = {
      direct: await median(() => direct2025.callTool({ name: 'summarize', arguments: {} })),
      through: await median(() => viaModern.callTool({ name: summarize, arguments: {} })),
    };
    const b = {
      direct: await median(() =>
        direct2026.callTool({ name: 'test_input_required_result_sampling', arguments: {} }),
      ),
      through: await median(() => via2025.callTool({ name: sampling, arguments: {} })),
    };
    const line = (label: string, sides: { direct: number; through: number }) =>
      `${label}: direct ${sides.direct.toFixed(2)} ms, through Portico ${sides.through.toFixed(2)} ms, added ${(sides.through - sides.direct).toFixed(2)} ms (median of ${CALLS})`;
    console.log(line('2026-07-28 client, 2025 upstream that samples once', a));
    console.log(line('2025 client, 2026-07-28 upstream with one sampling round', b));
    await Promise.all([direct2025, viaModern, direct2026, via2025].map((client) => client.close()));
  } finally {
    await app.close();
    await old.close();
    await modern.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
