import { createConnection, type Socket } from 'node:net';
import { type ChaosConfig } from '../config';
import { summarize, within } from '../load';
import { calls, type Check, count, ms, row } from '../report';
import { type Portico, scenarioDatabase, sleep, startChaosPortico } from '../world';
import { callLoad, type Context, gateway, type Scenario, step } from './context';

/** Portico should cut a slow client well before Node's own defaults (60 s headers, 300 s body). */
const CUT_PASS_MS = 60_000;
const BASELINE_MS = 3000;

type Kind = 'headers' | 'body';

interface SlowClient {
  kind: Kind;
  socket: Socket;
  /** What is still to be sent, a byte a second. */
  pending: Buffer;
  openedAt: number;
  /** How long Portico let it hold its connection; null while it does. */
  heldMs: number | null;
  /** The status line Portico answered with, if any. */
  status: string | null;
  /** Still held when the scenario gave up on it: the suite closed it, not Portico. */
  abandoned: boolean;
}

function slowClient(portico: Portico, kind: Kind): SlowClient {
  const { port, host } = new URL(portico.baseUrl);
  const headers = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`;
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}${' '.repeat(100_000)}`;
  const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
  const client: SlowClient = {
    kind,
    socket,
    openedAt: Date.now(),
    heldMs: null,
    status: null,
    abandoned: false,
    pending: Buffer.from(kind === 'headers' ? `${headers}X-Slow: ${'a'.repeat(100_000)}` : body),
  };
  if (kind === 'body')
    socket.write(
      `${headers}Authorization: Bearer ${portico.token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
  socket.on('data', (data: Buffer) => {
    client.status ??= /^HTTP\/1\.1 (\d+)/.exec(data.toString())?.[1] ?? 'bytes';
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (!client.abandoned) client.heldMs ??= Date.now() - client.openedAt;
  });
  return client;
}

function figures(clients: SlowClient[], kind: Kind, boundMs: number) {
  const mine = clients.filter((client) => client.kind === kind);
  const cut = mine.filter((client) => client.heldMs !== null).map((client) => client.heldMs!);
  cut.sort((a, b) => a - b);
  const statuses = new Map<string, number>();
  for (const client of mine)
    statuses.set(client.status ?? 'none', (statuses.get(client.status ?? 'none') ?? 0) + 1);
  const held = mine.length - cut.length;
  return {
    text: `${kind === 'headers' ? 'headers byte by byte' : 'body at 1 byte/s'}: ${cut.length} of ${mine.length} cut${cut.length ? `, after ${ms(cut[0])} to ${ms(cut.at(-1))}` : ''}${held ? `, ${held} still open after ${ms(boundMs)}` : ''}; answers ${[...statuses].map(([status, n]) => `${n}× ${status}`).join(', ')}`,
    worstMs: held ? Infinity : (cut.at(-1) ?? 0),
  };
}

/** How long the worst slow client held its connection, against the limit. */
function held(worstMs: number, boundMs: number): string {
  if (worstMs !== Infinity) return `${ms(worstMs)} (limit ${ms(CUT_PASS_MS)})`;
  if (boundMs < CUT_PASS_MS)
    return `to the end of the run (${ms(boundMs)}, shorter than the ${ms(CUT_PASS_MS)} limit: not judged, set CHAOS_SLOWLORIS_SECONDS ≥ 60)`;
  return `past ${ms(boundMs)} (limit ${ms(CUT_PASS_MS)})`;
}

export const slowloris: Scenario = {
  id: 8,
  title: 'Slowloris: connections trickling headers, and bodies at one byte a second',
  budgetMs: (config: ChaosConfig) => config.slowlorisSeconds * 1000 + 180_000,
  run: async (context: Context) => {
    const { config, scope } = context;
    const database = await scenarioDatabase(config, scope);
    const portico = await startChaosPortico(config, scope, database.url);
    const { tool } = await gateway(context, portico, 'alpha');
    const normal = await callLoad(context, portico, tool, 2);
    await sleep(BASELINE_MS);

    const total = config.slowlorisConnections;
    step(`opening ${total} slow connections`);
    const from = Date.now();
    const clients = Array.from({ length: total }, (_, i) =>
      slowClient(portico, i % 2 === 0 ? 'headers' : 'body'),
    );
    scope.defer('slow connections', () => clients.forEach((client) => client.socket.destroy()));
    const boundMs = config.slowlorisSeconds * 1000;
    while (Date.now() - from < boundMs && clients.some((client) => client.heldMs === null)) {
      for (const client of clients) {
        if (client.heldMs !== null || client.pending.length === 0) continue;
        client.socket.write(client.pending.subarray(0, 1));
        client.pending = client.pending.subarray(1);
      }
      await sleep(1000);
    }
    const to = Date.now();
    for (const client of clients) {
      client.abandoned = client.heldMs === null;
      client.socket.destroy();
    }
    step('slow connections done');
    await normal.stop();

    const headers = figures(clients, 'headers', boundMs);
    const body = figures(clients, 'body', boundMs);
    const baseline = summarize(within(normal.samples, from - BASELINE_MS, from));
    const during = summarize(within(normal.samples, from, to));
    const death = portico.death();
    const checks: Check[] = [
      [death === null, `process ${death}`],
      [
        headers.worstMs <= CUT_PASS_MS,
        `slow headers held a connection ${held(headers.worstMs, boundMs)}`,
      ],
      [body.worstMs <= CUT_PASS_MS, `a slow body held a connection ${held(body.worstMs, boundMs)}`],
      [during.failed === 0, `${during.failed} calls of the normal client failed`],
      [during.p99 < 1000, `the normal client's p99 was ${ms(during.p99)} (limit 1 s)`],
    ];
    return [
      row(
        '8',
        `${count(total)} slowloris connections, half trickling headers, half a body (for at most ${ms(boundMs)})`,
        'a normal client: 2 sessions calling in a loop',
        [
          headers.text,
          body.text,
          `normal client before: ${calls(baseline)}`,
          `during: ${calls(during)}`,
          death ? `process ${death}` : 'process alive',
        ],
        checks,
      ),
    ];
  },
};
