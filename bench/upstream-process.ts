import { createInterface } from 'node:readline';
import { echoTool, UpstreamFixture } from '../test/fixtures/upstream-server';

// A benchmark upstream in its own process: prints its URL and serves until killed, on PORT when
// set (so a killed one can be started again where it was). Writing "bump" to its stdin changes
// every tool's description (a sync then updates them all).
async function main(): Promise<void> {
  const count = Number(process.env.TOOLS ?? '10');
  const names = Array.from({ length: count }, (_, i) => `tool_${i}`);
  const upstream = await new UpstreamFixture({
    name: 'bench',
    tools: names.map((name) => echoTool(name, 'bench')),
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

void main();
