import { createInterface } from 'node:readline';
import { echoTool, type FixtureTool, UpstreamFixture } from '../test/fixtures/upstream-server';
import { startModernUpstream } from './modern-upstream';

// A benchmark upstream in its own process: prints its URL and serves until killed, on PORT when
// set (so a killed one can be started again where it was). ERA=2026-07-28 serves the same tools
// statelessly on SDK v2 (`modern-upstream.ts`); otherwise it is a 2025 server on SDK v1, and
// writing "bump" to its stdin changes every tool's description (a sync then updates them all).
// FLOOD=1 adds `flood`, which sends 4 KiB log messages as fast as they are taken, up to 80 MiB,
// until it is cancelled.
async function main(): Promise<void> {
  const count = Number(process.env.TOOLS ?? '10');
  const names = Array.from({ length: count }, (_, i) => `tool_${i}`);
  if (process.env.ERA === '2026-07-28') {
    process.stdout.write(`${await startModernUpstream(names, Number(process.env.PORT ?? 0))}\n`);
    return;
  }
  const upstream = await new UpstreamFixture({
    name: 'bench',
    tools: [
      ...names.map((name) => echoTool(name, 'bench')),
      ...(process.env.FLOOD === '1' ? [flood] : []),
    ],
    pageSize: 1000,
  }).start(Number(process.env.PORT ?? 0));
  let version = 0;
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'bump') return;
    version += 1;
    for (const name of names)
      upstream.setTool(echoTool(name, 'bench', { description: `${name}, version ${version}` }));
    process.stdout.write(`bumped ${version}\n`);
  });
  process.stdout.write(`${upstream.url}\n`);
}

const flood: FixtureTool = {
  definition: { name: 'flood', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    const data = 'x'.repeat(4096);
    for (let sent = 0; sent < 20_000 && !extra.signal.aborted; sent++) {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data },
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { content: [{ type: 'text', text: 'flooded' }] };
  },
};

void main();
