import { type JSONRPCResponse } from '@modelcontextprotocol/server';
import { InProcessEventBus } from '../../events/in-process-event-bus';
import { SHARED_OWNER } from '../../upstream/oauth/upstream-oauth-token.entity';
import { type UpstreamOAuth } from '../../upstream/oauth/upstream-oauth.service';
import { type McpRequest } from '../protocol/mcp-request';
import { connectElicitation, ConsentWaits } from './consent';
import { type SessionRuntime } from './session-runtime';

const URL_OF = (gatewayId: string) => `https://portico.example/admin/connections/${gatewayId}`;

function needsConnecting(gatewayId: string): JSONRPCResponse {
  return {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32042,
      message: 'connect',
      data: {
        elicitations: [
          { mode: 'url', elicitationId: 'e1', url: URL_OF(gatewayId), message: 'Connect' },
        ],
      },
    },
  };
}

describe('ConsentWaits', () => {
  let bus: InProcessEventBus;
  let waits: ConsentWaits;
  const told: unknown[] = [];

  beforeEach(() => {
    bus = new InProcessEventBus();
    waits = new ConsentWaits(bus, { connectUrl: URL_OF } as unknown as UpstreamOAuth);
    waits.onModuleInit();
    told.length = 0;
  });

  afterEach(() => waits.onModuleDestroy());

  /** A session whose client answers the elicitation with `action`, then runs `then`. */
  function runtime(action: string, then: () => Promise<void> = async () => undefined) {
    return {
      ask: async () => {
        await then();
        return { action };
      },
      toClient: (message: unknown) => told.push(message),
    } as unknown as SessionRuntime;
  }

  function request(signal = new AbortController().signal, userId: string | null = 'u1') {
    return {
      id: 1,
      principal: { userId },
      meta: { clientCapabilities: { elicitation: { url: {} } } },
      signal,
    } as unknown as McpRequest;
  }

  const connected = (gatewayId: string, owner: string) =>
    bus.publish({ type: 'oauth.connected', gatewayId, owner });

  it('reads the URL elicitation of a -32042 answer, and nothing else', () => {
    expect(connectElicitation(needsConnecting('g1'))).toEqual({
      elicitationId: 'e1',
      url: URL_OF('g1'),
      message: 'Connect',
    });
    expect(connectElicitation({ jsonrpc: '2.0', id: 1, result: {} })).toBeNull();
  });

  it('goes on once the user connected that gateway, and tells the client', async () => {
    const answer = needsConnecting('g1');
    const asking = waits.connected(
      runtime('accept', () => connected('g1', 'u1')),
      request(),
      answer,
    );
    await expect(asking).resolves.toBe(true);
    expect(told).toEqual([
      expect.objectContaining({
        method: 'notifications/elicitation/complete',
        params: { elicitationId: 'e1' },
      }),
    ]);
  });

  it("does not go on for another user's or another gateway's connection, but does for the gateway's own account", async () => {
    const controller = new AbortController();
    const asking = waits.connected(
      runtime('accept'),
      request(controller.signal),
      needsConnecting('g1'),
    );
    await new Promise((resolve) => setImmediate(resolve));
    let settled = false;
    void asking.then(() => (settled = true));
    await connected('g1', 'u2');
    await connected('g2', 'u1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await connected('g1', SHARED_OWNER);
    await expect(asking).resolves.toBe(true);
  });

  it('leaves the answer as it is for a refusal, a cancelled call, a client without URL elicitation or no user', async () => {
    const answer = needsConnecting('g1');
    await expect(waits.connected(runtime('decline'), request(), answer)).resolves.toBe(false);
    const controller = new AbortController();
    const cancelled = waits.connected(runtime('accept'), request(controller.signal), answer);
    controller.abort();
    await expect(cancelled).resolves.toBe(false);
    const formOnly = { ...request(), meta: { clientCapabilities: { elicitation: {} } } };
    await expect(waits.connected(runtime('accept'), formOnly as McpRequest, answer)).resolves.toBe(
      false,
    );
    await expect(
      waits.connected(runtime('accept'), request(undefined, null), answer),
    ).resolves.toBe(false);
    expect(told).toEqual([]);
  });
});
