import { echoTool, startUpstream } from '../test/fixtures/upstream-server';

// A benchmark upstream in its own process: prints its URL, serves until killed.
async function main(): Promise<void> {
  const count = Number(process.env.TOOLS ?? '10');
  const tools = Array.from({ length: count }, (_, i) => echoTool(`tool_${i}`, 'bench'));
  const upstream = await startUpstream({ name: 'bench', tools, pageSize: 1000 });
  process.stdout.write(`${upstream.url}\n`);
}

void main();
