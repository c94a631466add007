import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { startPetstore } from '../test/fixtures/openapi-rest-server';
import { startTestApp } from '../test/support/test-app';

// `npm run bench:openapi`: the cost of an OpenAPI operation called through Portico (an SDK v2
// client on 2026-07-28, a virtual server, the gateway's bearer token) against the same request
// sent straight to the REST service, one call at a time. Portico, the service and the clients
// share this process, so the figures are for comparison, not capacity.

const WARMUP = 100;
const CALLS = 1_000;

function summary(label: string, samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  console.log(
    `${label}: median ${at(0.5).toFixed(3)} ms, p90 ${at(0.9).toFixed(3)} ms, p99 ${at(0.99).toFixed(3)} ms`,
  );
  return at(0.5);
}

async function timed(call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples;
}

async function main(): Promise<void> {
  const rest = await startPetstore();
  const t = await startTestApp();
  const pool = new Pool(rest.origin);
  try {
    await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Pets',
        transport: 'openapi',
        url: `${rest.origin}/v2`,
        openapiUrl: `${rest.origin}/openapi.json`,
        auth: { type: 'bearer', token: 'pet-secret' },
      })
      .expect(201);
    const tools = (await t.api().get('/api/v1/tools').query({ q: 'getPetById' }).expect(200))
      .body as { items: { id: string; name: string }[] };
    const toolId = tools.items.find((tool) => tool.name === 'pets-getPetById')!.id;
    const server = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Pets', toolIds: [toolId] })
        .expect(201)
    ).body as { id: string };
    const token = (await t.api().post(`/api/v1/servers/${server.id}/tokens`).send({}).expect(201))
      .body as { accessToken: string };
    const client = new Client(
      { name: 'bench', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`/servers/${server.id}/mcp`, t.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${token.accessToken}` } },
      }),
    );
    const direct = summary(
      'direct GET /v2/pet/1',
      await timed(async () => {
        const response = await pool.request({
          path: '/v2/pet/1',
          method: 'GET',
          headers: { authorization: 'Bearer pet-secret', accept: 'application/json' },
        });
        await response.body.json();
      }),
    );
    const through = summary(
      'through Portico tools/call pets-getPetById',
      await timed(() => client.callTool({ name: 'pets-getPetById', arguments: { petId: 1 } })),
    );
    console.log(`Portico adds ${(through - direct).toFixed(3)} ms at the median`);
    await client.close();
  } finally {
    await pool.close();
    await t.close();
    await rest.close();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
