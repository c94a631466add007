import { type Result } from '@modelcontextprotocol/client';
import { loadConfig } from '../../config/load-config';
import { InProcessEventBus } from '../../events/in-process-event-bus';
import { tempDataDir } from '../../../test/support/temp-dir';
import { type RequestSink, type UpstreamAsk } from '../upstream-connection';
import { PARKED_STATE, ParkedCalls } from './parked-calls';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet: RequestSink = { notify: () => undefined };

/**
 * An upstream call held open by the test: it asks what `asking` says through the sink it is made
 * with, and ends when the test says so.
 */
function upstreamCall() {
  let ask!: (asked: UpstreamAsk) => Promise<Result>;
  let end!: (result: Result) => void;
  let signal!: AbortSignal;
  const exchange = (sink: RequestSink, callSignal: AbortSignal) => {
    ask = (asked) => sink.ask!(asked);
    signal = callSignal;
    return new Promise<Result>((resolve) => (end = resolve));
  };
  return {
    exchange,
    ask: (asked: UpstreamAsk) => ask(asked),
    end: (result: Result) => end(result),
    get signal() {
      return signal;
    },
  };
}

type Round = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };

describe('ParkedCalls', () => {
  let calls: ParkedCalls;
  let bus: InProcessEventBus;

  beforeEach(() => {
    bus = new InProcessEventBus();
    calls = new ParkedCalls(
      loadConfig({ DATA_DIR: tempDataDir(), MCP_INPUT_ROUND_TTL_SECONDS: '1' }),
      bus,
      { value: 'replica-a' },
    );
    calls.onModuleInit();
  });

  afterEach(() => calls.onModuleDestroy());

  it('answers with the result when the upstream asks nothing, parking nothing', async () => {
    const upstream = upstreamCall();
    const answer = calls.run(upstream.exchange, quiet, undefined, {});
    upstream.end({ content: [] });
    await expect(answer).resolves.toEqual({ content: [] });
    expect(calls.size).toBe(0);
  });

  it('asks what the upstream asks together in one round, and answers it from the retry', async () => {
    const upstream = upstreamCall();
    const first = calls.run(upstream.exchange, quiet, undefined, { sampling: {}, roots: {} });
    const sampled = upstream.ask({ method: 'sampling/createMessage', params: { maxTokens: 1 } });
    const roots = upstream.ask({ method: 'roots/list' });
    const round = (await first) as Round;
    expect(round).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        input_1: { method: 'sampling/createMessage' },
        input_2: { method: 'roots/list' },
      },
      requestState: expect.stringMatching(/^pk1\.replica-a\./),
    });
    expect(round.requestState.startsWith(PARKED_STATE)).toBe(true);
    expect(calls.size).toBe(1);

    await expect(
      calls.resume(round.requestState, { input_1: { model: 'm' } }, quiet, undefined),
    ).rejects.toThrow(/no answer for input_2/);
    const third = calls.resume(
      round.requestState,
      { input_1: { model: 'm' }, input_2: { roots: [] } },
      quiet,
      undefined,
    );
    await expect(sampled).resolves.toEqual({ model: 'm' });
    await expect(roots).resolves.toEqual({ roots: [] });
    // A second retry of a round already answered is refused, not left hanging.
    await expect(
      calls.resume(round.requestState, { input_1: {}, input_2: {} }, quiet, undefined),
    ).rejects.toThrow(/already answered/);
    upstream.end({ content: [] });
    await expect(third).resolves.toEqual({ content: [] });
    expect(calls.size).toBe(0);
  });

  it('ends a call whose client cannot answer what the upstream asks', async () => {
    const upstream = upstreamCall();
    const first = calls.run(upstream.exchange, quiet, undefined, {});
    await expect(upstream.ask({ method: 'elicitation/create', params: {} })).rejects.toMatchObject({
      code: -32021,
    });
    await expect(first).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    expect(upstream.signal.aborted).toBe(true);
  });

  it('cancels a call whose round expires, and tells a late retry it is gone', async () => {
    const upstream = upstreamCall();
    const first = calls.run(upstream.exchange, quiet, undefined, { elicitation: {} });
    void upstream.ask({ method: 'elicitation/create', params: {} });
    const round = (await first) as Round;
    await pause(1200);
    expect(upstream.signal.aborted).toBe(true);
    expect(calls.size).toBe(0);
    await expect(calls.resume(round.requestState, {}, quiet, undefined)).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('is cancelled by the request that started it, parked or not', async () => {
    const upstream = upstreamCall();
    const abort = new AbortController();
    const first = calls.run(upstream.exchange, quiet, abort.signal, { elicitation: {} });
    void upstream.ask({ method: 'elicitation/create', params: {} });
    await first;
    abort.abort('the client cancelled');
    expect(upstream.signal.aborted).toBe(true);
    expect(calls.size).toBe(0);
  });

  it('reaches a call held by another replica over the bus, and hears its answer', async () => {
    const other = new ParkedCalls(loadConfig({ DATA_DIR: tempDataDir() }), bus, {
      value: 'replica-b',
    });
    other.onModuleInit();
    try {
      const upstream = upstreamCall();
      const first = calls.run(upstream.exchange, quiet, undefined, { roots: {} });
      const roots = upstream.ask({ method: 'roots/list' });
      const round = (await first) as Round;
      const notes: string[] = [];
      const retry = other.resume(
        round.requestState,
        { input_1: { roots: [] } },
        { notify: (notification) => notes.push(notification.method) },
        undefined,
      );
      await expect(roots).resolves.toEqual({ roots: [] });
      await pause(10);
      upstream.end({ content: [{ type: 'text', text: 'ok' }] });
      await expect(retry).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
      // A state that names no call held anywhere is refused by the replica that holds none.
      await expect(
        other.resume('pk1.replica-a.unknown', {}, quiet, undefined),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      other.onModuleDestroy();
    }
  });
});
