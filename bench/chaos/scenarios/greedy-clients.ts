import { createConnection, type Socket } from 'node:net';
import { summarize, within } from '../load';
import { rssSamples } from '../probes';
import { calls, type Check, count, ms, row } from '../report';
import {
  addGateway,
  chaosUpstream,
  rssMiB,
  scenarioDatabase,
  sleep,
  startChaosPortico,
} from '../world';
import { callLoad, type Context, type Scenario, step } from './context';

const BASELINE_MS = 3000;
/** How long the greedy clients read nothing, while their upstream floods them. */
const STALL_MS = 20_000;
/** How long a greedy client, reading again, may take to see its connection end. */
const END_MS = 30_000;
/** What a flood sends a client that is never cut off. */
const FLOOD_MIB = 80;
/** What Portico lets a client leave unread (STREAM_BACKLOG_BYTES), and room for the sockets. */
const BACKLOG_MIB = 8;
const RECEIVED_LIMIT_MIB = BACKLOG_MIB + 16;
const MIB = 1024 * 1024;

interface Greedy {
  socket: Socket;
  received: number;
  ended: boolean;
}

/**
 * A 2026-07-28 client on a raw socket that calls `tool` (asking for its log messages) and then
 * reads nothing: Portico's answer becomes an event stream that the client leaves unread.
 */
function greedyClient(baseUrl: string, token: string, tool: string): Greedy {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'greedy', version: '1.0.0' },
        'io.modelcontextprotocol/logLevel': 'info',
      },
    },
  });
  const { port } = new URL(baseUrl);
  const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
  const greedy: Greedy = { socket, received: 0, ended: false };
  socket.write(
    [
      'POST /mcp HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${token}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2026-07-28',
      'Mcp-Method: tools/call',
      `Mcp-Name: ${tool}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
  socket.on('data', (chunk: Buffer) => (greedy.received += chunk.length));
  socket.on('error', () => undefined);
  socket.on('close', () => (greedy.ended = true));
  socket.pause();
  return greedy;
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

export const greedyClients: Scenario = {
  id: 11,
  title: 'Greedy clients: event streams nobody reads, from an upstream that floods them',
  budgetMs: () => 240_000,
  run: async (context: Context) => {
    const { config, scope } = context;
    const database = await scenarioDatabase(config, scope);
    const portico = await startChaosPortico(config, scope, database.url);
    const upstream = await chaosUpstream(scope, 0, { FLOOD: '1' });
    await addGateway(portico, 'alpha', upstream.url);
    const normal = await callLoad(context, portico, 'alpha-tool_1', 2);
    await sleep(BASELINE_MS);
    const pid = portico.child.pid;
    const rssBefore = rssMiB(pid) ?? 0;

    const total = config.greedyClients;
    step(`${total} clients call alpha-flood and read nothing for ${ms(STALL_MS)}`);
    const from = Date.now();
    const rss = rssSamples(pid, 250, STALL_MS);
    const clients = Array.from({ length: total }, () =>
      greedyClient(portico.baseUrl, portico.token, 'alpha-flood'),
    );
    scope.defer('greedy clients', () => clients.forEach((client) => client.socket.destroy()));
    await sleep(STALL_MS);
    const peak = Math.max(rssBefore, ...(await rss.stop()).map((sample) => sample.mib ?? 0));
    const to = Date.now();

    step('the greedy clients read again, until their connections end');
    for (const client of clients) client.socket.resume();
    const until = Date.now() + END_MS;
    while (Date.now() < until && clients.some((client) => !client.ended)) await sleep(250);
    await normal.stop();

    const ended = clients.filter((client) => client.ended).length;
    const most = Math.max(...clients.map((client) => client.received));
    const growth = peak - rssBefore;
    const growthLimit = total * (BACKLOG_MIB + 8) + 64;
    const baseline = summarize(within(normal.samples, from - BASELINE_MS, from));
    const during = summarize(within(normal.samples, from, to));
    const death = portico.death();
    const checks: Check[] = [
      [death === null, `process ${death}`],
      [
        ended === total,
        `${total - ended} greedy clients were still connected ${ms(END_MS)} after reading again`,
      ],
      [
        most <= RECEIVED_LIMIT_MIB * MIB,
        `a greedy client received ${mib(most)} (limit ${RECEIVED_LIMIT_MIB} MiB of the ${FLOOD_MIB} MiB flood)`,
      ],
      [
        growth <= growthLimit,
        `resident memory grew ${growth.toFixed(0)} MiB (limit ${growthLimit} MiB)`,
      ],
      [during.failed === 0, `${during.failed} calls of the normal client failed`],
      [during.p99 < 1000, `the normal client's p99 was ${ms(during.p99)} (limit 1 s)`],
    ];
    return [
      row(
        '11',
        `${count(total)} greedy clients (2026-07-28 calls whose event stream they never read) against an upstream flooding ${FLOOD_MIB} MiB of log messages each, for ${ms(STALL_MS)}`,
        'a normal client: 2 sessions calling in a loop',
        [
          `greedy clients cut off: ${ended} of ${total}; the most one received: ${mib(most)}`,
          `RSS ${rssBefore.toFixed(0)} MiB before, at most ${peak.toFixed(0)} MiB while they read nothing`,
          `normal client before: ${calls(baseline)}`,
          `during: ${calls(during)}`,
          death ? `process ${death}` : 'process alive',
        ],
        checks,
      ),
    ];
  },
};
