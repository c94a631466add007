import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildModel } from '../src/upstream/openapi/openapi-model';
import { refusalOf } from '../src/upstream/transport/message-bounds';
import { HTTP_METHODS, type OpenApiSelection } from '../src/upstream/openapi/openapi-selection';
import { startTestApp } from '../test/support/test-app';

// `npm run openapi:large -- [description.json]`: what a large real description costs Portico.
// By default GitHub's REST description as @octokit/openapi ships it (about 1,000 operations,
// 13 MB), which is not a dependency of Portico: `npm install --no-save @octokit/openapi` first.
// Prints the cost of reading it as tools (parse, validate, build), then a real sync through a
// Portico on loopback: the description served over HTTP, the gateway registered over REST.

const path = process.argv[2] ?? require.resolve('@octokit/openapi/generated/api.github.com.json');
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

async function readAsTools(text: string): Promise<void> {
  const selections: [string, OpenApiSelection][] = [
    ['GET and HEAD (the default)', {}],
    ['every method', { methods: [...HTTP_METHODS] }],
  ];
  for (const [label, selection] of selections) {
    const started = performance.now();
    const model = await buildModel(text, selection, 64);
    const ms = performance.now() - started;
    const refused = model.tools.filter((tool) => refusalOf(tool) !== null);
    console.log(
      `${label}: ${model.plans.size} tools, ${refused.length} operations refused, ` +
        `${ms.toFixed(0)} ms (parse + validate + build), heap ${mb(process.memoryUsage().heapUsed)}`,
    );
    for (const tool of refused.slice(0, 3)) console.log(`  refused: ${refusalOf(tool)}`);
  }
}

async function syncThroughPortico(text: string): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = await startTestApp();
  try {
    let started = performance.now();
    const created: { body: { id: string } } = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'GitHub', transport: 'openapi', url: origin, openapiUrl: `${origin}/doc` })
      .expect(201);
    let gateway: { toolCount: number; status: string; lastError: string | null };
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      gateway = (await t.api().get(`/api/v1/gateways/${created.body.id}`).expect(200))
        .body as typeof gateway;
    } while (gateway.toolCount === 0 && gateway.lastError === null);
    console.log(
      `Portico: register + first sync ${(performance.now() - started).toFixed(0)} ms, ` +
        `${gateway.toolCount} tools stored (status ${gateway.status}${gateway.lastError ? `: ${gateway.lastError}` : ''})`,
    );
    for (let round = 1; round <= 2; round++) {
      started = performance.now();
      const synced = await t.api().post(`/api/v1/gateways/${created.body.id}/sync`).expect(200);
      const { added, updated, unchanged } = synced.body as Record<string, unknown[]>;
      console.log(
        `Portico: sync of the unchanged description (fetched again, same hash) ${(performance.now() - started).toFixed(0)} ms: ` +
          `${added?.length} added, ${updated?.length} updated, ${String(unchanged)} unchanged`,
      );
    }
  } finally {
    await t.close();
    server.close();
  }
}

async function main(): Promise<void> {
  const text = readFileSync(path, 'utf8');
  console.log(`${path}: ${mb(Buffer.byteLength(text))}`);
  if (!process.env.SKIP_READ) await readAsTools(text);
  await syncThroughPortico(text);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
