import { STDIO_SERVERS } from '../fixtures/stdio-servers';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// Measures, does not assert much: how long a new session waits for its first stdio call with the
// pool warm (WARM=1) and cold (WARM=0), and the RSS of a stdio process. Run by hand with
// STDIO_MEASURE=1; prints one line. The README's figures come from it.
const measure = process.env.STDIO_MEASURE ? describe : describe.skip;

measure('stdio latency (measurement)', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('measures', async () => {
    t = await startTestApp({
      env: { STDIO_COMMANDS: 'node', STDIO_WARM_PROCESSES: process.env.WARM ?? '1' },
    });
    const gw = (
      await t
        .api()
        .post('/api/v1/gateways')
        .send(
          process.env.HTTP_URL
            ? { name: 'Ev', url: process.env.HTTP_URL }
            : {
                name: 'Ev',
                transport: 'stdio',
                command: 'node',
                args: [STDIO_SERVERS.everything, 'stdio'],
              },
        )
        .expect(201)
    ).body as { id: string; slug: string };
    const times: number[] = [];
    const seconds: number[] = [];
    for (let i = 0; i < 8; i++) {
      if (process.env.WARM !== '0' && !process.env.HTTP_URL)
        await waitFor(
          async () =>
            (
              (await t.api().get(`/api/v1/gateways/${gw.id}/processes`)).body as {
                processes: { state: string }[];
              }
            ).processes.some((p) => p.state === 'warm'),
          'warm',
          20_000,
        );
      // As between sessions that do not arrive all at once: the spare has had time to load.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const client = await connectClient(t.baseUrl, { token: t.token });
      const start = performance.now();
      await client.callTool({ name: `${gw.slug}-echo`, arguments: { message: 'x' } });
      times.push(Math.round(performance.now() - start));
      const again = performance.now();
      await client.callTool({ name: `${gw.slug}-echo`, arguments: { message: 'y' } });
      seconds.push(Math.round(performance.now() - again));
      await client.close();
    }
    const body = (await t.api().get(`/api/v1/gateways/${gw.id}/processes`)).body as {
      processes: { rssBytes: number }[];
    };
    const rss = body.processes.map((p) => Math.round(p.rssBytes / 1024 / 1024));
    process.stderr.write(
      `STDIO-MEASURE warm=${process.env.WARM ?? '1'} firstCallMs=${times.join(',')} secondCallMs=${seconds.join(',')} rssMiB=${rss.join(',')}\n`,
    );
    expect(times).toHaveLength(8);
  });
});
