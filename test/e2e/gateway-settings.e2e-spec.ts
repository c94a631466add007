import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { parse as parseYaml } from 'yaml';
import { Gateway } from '../../src/gateways/gateway.entity';
import { REQUEST_TIMEOUT, UPSTREAM_UNAVAILABLE } from '../../src/mcp/protocol/mcp-errors';
import { startTarpit, type Tarpit } from '../fixtures/tarpit';
import { factories } from '../support/factories';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface ApplyBody {
  changes: { action: string; kind: string; name: string; fields: { field: string }[] }[];
}

/** The call's JSON-RPC error and how long it took to come. */
async function failed(call: () => Promise<unknown>): Promise<{ ms: number; error: McpError }> {
  const started = Date.now();
  try {
    await call();
  } catch (error) {
    if (error instanceof McpError) return { ms: Date.now() - started, error };
    throw error;
  }
  throw new Error('The call did not fail');
}

describe("a gateway's own settings, from the configuration document", () => {
  let t: TestApp;
  let tarpit: Tarpit;
  let client: Client;

  const document = (settings: Record<string, number>) => ({
    apiVersion: 'portico/v1',
    gateways: [{ name: 'Tarpit', url: tarpit.url, settings }],
  });
  const apply = async (body: object): Promise<ApplyBody> =>
    (await t.api().put('/api/v1/config').send(body).expect(200)).body as ApplyBody;

  beforeAll(async () => {
    // The replica's own settings are the defaults: a 30 s timeout, a breaker after 5 failures.
    t = await startTestApp();
    tarpit = await startTarpit();
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await tarpit?.close();
  });

  it('times out and opens the breaker of that upstream as it says, and exports what it says', async () => {
    const own = {
      timeoutMs: 400,
      callMaxMs: 60_000,
      breakerFailures: 1,
      breakerFirstCooldownMs: 60_000,
      breakerCooldownMs: 60_000,
      retries: 0,
    };
    await apply(document(own));
    const gateway = await t.app
      .get(DataSource)
      .getRepository(Gateway)
      .findOneByOrFail({ name: 'Tarpit' });
    expect(gateway.settings).toEqual(own);
    await factories(t.app).tools(gateway, ['hang']);
    client = await connectClient(t.baseUrl, { token: t.token });

    // Applying the document already tried the new upstream once (its 400 ms ran out then): the
    // first call finds the breaker open, or, when that try has not ended yet, times out itself.
    const first = await failed(() => client.callTool({ name: 'tarpit-hang', arguments: {} }));
    expect(first.ms).toBeLessThan(5000);
    if (first.error.code === REQUEST_TIMEOUT)
      expect(first.error.message).toMatch(/did not answer within 400 ms/);
    else {
      expect(first.error.code).toBe(UPSTREAM_UNAVAILABLE);
      expect(first.error.message).toMatch(
        /after 1 failure in a row \(last: no answer within 400 ms\)/,
      );
    }
    const second = await failed(() => client.callTool({ name: 'tarpit-hang', arguments: {} }));
    expect(second.ms).toBeLessThan(1000);
    expect(second.error.message).toMatch(
      /circuit breaker is open after 1 failure in a row \(last: no answer within 400 ms\)/,
    );

    const exported = parseYaml(
      (await t.api().get('/api/v1/config?format=yaml').expect(200)).text,
    ) as { gateways: { name: string; settings?: unknown }[] };
    expect(exported.gateways.find((entry) => entry.name === 'Tarpit')?.settings).toEqual(own);
    // The same settings in another order are no change; a changed one is an update of settings.
    const reordered = Object.fromEntries(Object.entries(own).reverse());
    expect((await apply(document(reordered))).changes).toEqual([]);
    const changed = await apply(document({ ...own, timeoutMs: 800 }));
    expect(changed.changes.map((change) => change.fields.map((field) => field.field))).toEqual([
      ['settings'],
    ]);
  });

  it('refuses a setting out of bounds or not about one upstream, naming it', async () => {
    for (const settings of [{ timeoutMs: 5 }, { pageSize: 10 }] as Record<string, number>[]) {
      const response = await t.api().put('/api/v1/config').send(document(settings));
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).toContain('gateways.0.settings');
    }
  });
});
