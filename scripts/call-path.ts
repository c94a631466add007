import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startModernEverythingServer } from '../test/fixtures/modern-everything-server';
import { startTestApp } from '../test/support/test-app';

// `npm run call-path`: which of Portico's source files run during one 2026-07-28 `tools/call`
// through `/mcp`, measured from V8's call counts (precise coverage) around one warmed-up call.
// Portico, a 2026-07-28-only upstream and the client share this process; only `src/` is counted.

async function main(): Promise<void> {
  const upstream = await startModernEverythingServer({ legacy: 'reject' });
  const portico = await startTestApp({ env: { SYNC_INTERVAL_SECONDS: '0' } });
  const inspector = new Session();
  try {
    await portico
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Modern', url: upstream.url })
      .expect(201);
    const client = new Client(
      { name: 'call-path', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', portico.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${portico.token}` } },
      }),
    );
    const name = (await client.listTools()).tools.find((tool) =>
      tool.name.endsWith('test_simple_text'),
    )!.name;
    const call = () => client.callTool({ name, arguments: {} });
    for (let warm = 0; warm < 20; warm++) await call();

    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await inspector.post('Profiler.takePreciseCoverage');
    await call();
    const { result } = await inspector.post('Profiler.takePreciseCoverage');
    const root = `${process.cwd()}/src/`;
    const files = new Map<string, string[]>();
    for (const script of result) {
      const path = script.url.replace(/^file:\/\//, '');
      if (!path.startsWith(root)) continue;
      const called = script.functions
        .filter((fn) => fn.functionName !== '' && fn.ranges[0]!.count > 0)
        .map((fn) => fn.functionName);
      if (called.length > 0) files.set(relative(process.cwd(), path), called);
    }
    for (const [file, functions] of [...files].sort())
      console.log(`${file}: ${[...new Set(functions)].join(', ')}`);
    console.log(`\n${files.size} source files run during one 2026-07-28 tools/call`);
    await client.close();
  } finally {
    inspector.disconnect();
    await portico.close();
    await upstream.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
