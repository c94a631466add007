import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  api,
  asJson,
  mcpClient,
  percentile,
  runAlone,
  startPortico,
  startUpstream,
  timed,
} from './support';

const SESSIONS = 32;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 8000);
const LATENCY_RUNS = 1000;

/** Calls per second from `sessions` clients calling in a loop for LOAD_MS. */
async function throughput(
  url: string,
  tool: string,
  sessions: number,
  token?: string,
): Promise<number> {
  const clients = await Promise.all(Array.from({ length: sessions }, () => mcpClient(url, token)));
  for (const client of clients) await client.callTool({ name: tool, arguments: {} });
  let calls = 0;
  const end = Date.now() + LOAD_MS;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < end) {
        await client.callTool({ name: tool, arguments: { n: calls } });
        calls += 1;
      }
    }),
  );
  await Promise.all(clients.map((client) => client.close()));
  return (calls / LOAD_MS) * 1000;
}

async function latencies(client: Client, tool: string): Promise<number[]> {
  for (let i = 0; i < 100; i++) await client.callTool({ name: tool, arguments: {} });
  return timed(LATENCY_RUNS, () => client.callTool({ name: tool, arguments: {} }));
}

export interface OverheadResult {
  directCallsPerSecond: number;
  gatewayCallsPerSecond: number;
  throughputRatio: number;
  directP50Ms: number;
  gatewayP50Ms: number;
  addedP50Ms: number;
}

/** DESIGN §4 "Gateway overhead": tools/call through Portico against the same upstream called directly. */
export async function gatewayOverhead(): Promise<OverheadResult> {
  const upstream = await startUpstream(10);
  const portico = await startPortico(Number(process.env.BENCH_PORT ?? 39_170));
  try {
    await api(portico.baseUrl, portico.token, 'POST', '/api/v1/gateways', {
      name: 'bench',
      url: upstream.url,
    });
    const mcp = `${portico.baseUrl}/mcp`;
    // Alternate to spread drift in machine load over both sides.
    const direct = [await throughput(upstream.url, 'tool_1', SESSIONS)];
    const gateway = [await throughput(mcp, 'bench-tool_1', SESSIONS, portico.token)];
    direct.push(await throughput(upstream.url, 'tool_1', SESSIONS));
    gateway.push(await throughput(mcp, 'bench-tool_1', SESSIONS, portico.token));

    const directClient = await mcpClient(upstream.url);
    const gatewayClient = await mcpClient(mcp, portico.token);
    const directTimes = await latencies(directClient, 'tool_1');
    const gatewayTimes = await latencies(gatewayClient, 'bench-tool_1');
    await directClient.close();
    await gatewayClient.close();

    const directCallsPerSecond = (direct[0]! + direct[1]!) / 2;
    const gatewayCallsPerSecond = (gateway[0]! + gateway[1]!) / 2;
    return {
      directCallsPerSecond,
      gatewayCallsPerSecond,
      throughputRatio: gatewayCallsPerSecond / directCallsPerSecond,
      directP50Ms: percentile(directTimes, 0.5),
      gatewayP50Ms: percentile(gatewayTimes, 0.5),
      addedP50Ms: percentile(gatewayTimes, 0.5) - percentile(directTimes, 0.5),
    };
  } finally {
    portico.stop();
    upstream.stop();
  }
}

if (require.main === module) runAlone(gatewayOverhead, asJson);
