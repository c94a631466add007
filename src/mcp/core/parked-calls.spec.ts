import { type JSONRPCRequest, type JSONRPCResponse } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { loadConfig } from '../../config/app-config';
import { InProcessEventBus } from '../../events/in-process-event-bus';
import { tempDataDir } from '../../../test/support/temp-dir';
import { ParkedCalls } from './parked-calls';
import { RequestStateSealer } from './request-state-seal';

const principal = { subject: 'user:u1' } as Principal;
const scope = { kind: 'all' } as const;
const call: JSONRPCRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'crm__delete', arguments: { id: 7 } },
};

/** A waiter that records what it was answered. */
function waiter(requestId: string | number) {
  const answers: JSONRPCResponse[] = [];
  return {
    answers,
    requestId,
    notify: () => undefined,
    settle: (answer: JSONRPCResponse) => void answers.push(answer),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ParkedCalls', () => {
  let calls: ParkedCalls;
  let bus: InProcessEventBus;

  beforeEach(() => {
    bus = new InProcessEventBus();
    calls = new ParkedCalls(
      loadConfig({ DATA_DIR: tempDataDir(), MCP_INPUT_ROUND_TTL_SECONDS: '1' }),
      new RequestStateSealer('s'.repeat(40), { ttlSeconds: 1 }),
      bus,
      { value: 'replica-a' },
    );
    calls.onModuleInit();
  });

  afterEach(() => calls.onModuleDestroy());

  it('asks what the upstream asks together in one round, and answers it from the retry', async () => {
    const first = waiter(1);
    const parked = calls.begin(principal, scope, call, { sampling: {}, roots: {} }, first);
    const sampled = parked.ask({ method: 'sampling/createMessage', params: { maxTokens: 1 } });
    const roots = parked.ask({ method: 'roots/list' });
    await pause(30);
    const round = first.answers[0] as { result: Record<string, unknown> };
    expect(round.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        input_1: { method: 'sampling/createMessage' },
        input_2: { method: 'roots/list' },
      },
    });
    expect(calls.size).toBe(1);

    const retry = {
      ...call,
      id: 2,
      params: { ...call.params, requestState: round.result.requestState },
    };
    const where = calls.parkedIn(principal, scope, retry);
    expect(where).toEqual({ kind: 'parked', replica: 'replica-a', parkedId: parked.id });
    const second = waiter(2);
    parked.retry({ input_1: { model: 'm' } }, second);
    expect(second.answers[0]).toMatchObject({ error: { message: /no answer for input_2/ } });
    const third = waiter(3);
    parked.retry({ input_1: { model: 'm' }, input_2: { roots: [] } }, third);
    await expect(sampled).resolves.toEqual({ model: 'm' });
    await expect(roots).resolves.toEqual({ roots: [] });
    // A second retry of a round already answered is refused, not left hanging.
    const duplicate = waiter(4);
    parked.retry({ input_1: {}, input_2: {} }, duplicate);
    expect(duplicate.answers[0]).toMatchObject({ error: { message: /already answered/ } });
    parked.finish({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    expect(third.answers).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [] } }]);
    expect(calls.size).toBe(0);
  });

  it('refuses a state bound to other arguments, and ends a call whose client cannot answer', async () => {
    const first = waiter(1);
    const parked = calls.begin(principal, scope, call, {}, first);
    await expect(parked.ask({ method: 'elicitation/create', params: {} })).rejects.toMatchObject({
      code: -32021,
    });
    expect(first.answers[0]).toMatchObject({
      id: 1,
      error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } },
    });
    expect(parked.signal.aborted).toBe(true);
    const other = calls.begin(principal, scope, call, { elicitation: {} }, waiter(5));
    void other.ask({ method: 'elicitation/create', params: {} });
    await pause(30);
    const state = calls.seal(
      {
        subject: 'user:u1',
        scope: 'all',
        gatewayId: '',
        method: 'tools/call',
        target: 'crm__delete',
        arguments: { id: 8 },
      },
      other.id,
    );
    expect(
      calls.parkedIn(principal, scope, {
        ...call,
        params: { ...call.params, requestState: state },
      }),
    ).toBeNull();
  });

  it('cancels a call whose round expires, and tells a late retry it is gone', async () => {
    const parked = calls.begin(principal, scope, call, { elicitation: {} }, waiter(1));
    void parked.ask({ method: 'elicitation/create', params: {} });
    await pause(1200);
    expect(parked.signal.aborted).toBe(true);
    expect(calls.size).toBe(0);
    const late = waiter(2);
    calls.retry(
      { replica: 'replica-a', parkedId: parked.id },
      call,
      late,
      new AbortController().signal,
    );
    expect(late.answers[0]).toMatchObject({ error: { code: -32602 } });
  });

  it('reaches a call held by another replica over the bus, and hears its answer', async () => {
    const other = new ParkedCalls(
      loadConfig({ DATA_DIR: tempDataDir() }),
      new RequestStateSealer('s'.repeat(40)),
      bus,
      { value: 'replica-b' },
    );
    other.onModuleInit();
    try {
      const parked = calls.begin(principal, scope, call, { roots: {} }, waiter(1));
      const roots = parked.ask({ method: 'roots/list' });
      await pause(30);
      const retry = waiter(2);
      other.retry(
        { replica: 'replica-a', parkedId: parked.id },
        { ...call, id: 2, params: { ...call.params, inputResponses: { input_1: { roots: [] } } } },
        retry,
        new AbortController().signal,
      );
      await expect(roots).resolves.toEqual({ roots: [] });
      parked.finish({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } });
      await pause(10);
      expect(retry.answers).toEqual([
        { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ok' }] } },
      ]);
    } finally {
      other.onModuleDestroy();
    }
  });
});
