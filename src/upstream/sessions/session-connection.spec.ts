import {
  type JSONRPCRequest,
  type JSONRPCResponse,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Channel,
  type ChannelListener,
  type ChannelRequestOptions,
} from '../transport/channel';
import { StubChannel } from '../../../test/support/stub-channel';
import { SessionConnection } from './session-connection';
import { type ConnectOptions } from '../upstream-connection';
import { UPSTREAM_ADMISSION, UpstreamFailure, UpstreamRefused } from '../upstream-error';
import { Admission, type AdmissionSettings } from '../resilience/concurrency-limiter';

/** A connection reset as undici reports it: the cause says what happened. */
const reset = () =>
  Object.assign(new Error('fetch failed'), {
    cause: { code: 'ECONNRESET', message: 'read ECONNRESET' },
  });

/**
 * A channel whose upstream answers the handshake, and whatever else as `answer` says: a result,
 * a thrown error, or nothing (the request waits for its abort).
 */
class FakeChannel extends StubChannel {
  readonly sent: string[] = [];
  startsNever = false;

  constructor(private readonly answer: (method: string, attempt: number) => unknown) {
    super();
  }

  override start(_listener: ChannelListener): Promise<void> {
    return this.startsNever ? new Promise<void>(() => undefined) : Promise.resolve();
  }

  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    if (message.method === 'initialize')
      return Promise.resolve({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          serverInfo: { name: 'fake', version: '1' },
        },
      });
    this.sent.push(message.method);
    const attempt = this.sent.filter((method) => method === message.method).length;
    const answer = this.answer(message.method, attempt);
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer === undefined)
      return new Promise((_resolve, reject) =>
        options.signal.addEventListener('abort', () => reject(options.signal.reason as Error)),
      );
    return Promise.resolve({ jsonrpc: '2.0', id: message.id, result: answer as never });
  }
}

const GUARD: AdmissionSettings = {
  failureThreshold: 100,
  firstCooldownMs: 60_000,
  cooldownMs: 60_000,
  maxConcurrent: 10,
  maxQueue: 10,
  queueTimeoutMs: 60_000,
};

function open(channel: Channel, options: Partial<ConnectOptions> = {}) {
  return SessionConnection.open(channel, {
    timeoutMs: 5_000,
    callMaxMs: 60_000,
    capabilities: {},
    secrets: [],
    listen: false,
    retry: { retries: 2, backoffMs: 1 },
    ...options,
  });
}

describe('SessionConnection', () => {
  it('retries an idempotent read after a connection failure', async () => {
    const channel = new FakeChannel((_method, attempt) =>
      attempt < 3 ? reset() : { contents: [] },
    );
    const connection = await open(channel);
    await expect(connection.request('resources/read', { uri: 'x://a' })).resolves.toEqual({
      contents: [],
    });
    expect(channel.sent).toEqual(['resources/read', 'resources/read', 'resources/read']);
  });

  it('gives up after the configured retries, with the connection failure', async () => {
    const channel = new FakeChannel(() => reset());
    const connection = await open(channel);
    await expect(connection.request('tools/list', {})).rejects.toMatchObject({
      kind: 'unreachable',
      message: 'fetch failed: read ECONNRESET',
    });
    expect(channel.sent).toHaveLength(3);
  });

  it('never retries tools/call, whose tool may have run', async () => {
    const channel = new FakeChannel(() => reset());
    const connection = await open(channel);
    await expect(connection.request('tools/call', { name: 't' })).rejects.toBeInstanceOf(
      UpstreamFailure,
    );
    expect(channel.sent).toEqual(['tools/call']);
  });

  it('does not retry a read that timed out', async () => {
    const channel = new FakeChannel(() => undefined);
    const connection = await open(channel, { timeoutMs: 30 });
    await expect(connection.request('prompts/get', { name: 'p' })).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(channel.sent).toEqual(['prompts/get']);
  });

  it('stops retrying once the failures have opened the circuit breaker', async () => {
    const admission = new Admission({ ...GUARD, failureThreshold: 2 }, UPSTREAM_ADMISSION);
    const channel = new FakeChannel(() => reset());
    const connection = await open(channel, { admission, retry: { retries: 5, backoffMs: 1 } });
    await expect(connection.request('resources/list', {})).rejects.toMatchObject({
      reason: 'circuit-open',
    });
    expect(channel.sent).toHaveLength(2);
    // From now on, nothing is sent at all.
    await expect(connection.request('tools/call', { name: 't' })).rejects.toBeInstanceOf(
      UpstreamRefused,
    );
    expect(channel.sent).toHaveLength(2);
  });

  it('holds no more requests than the cap, and refuses past its queue without sending', async () => {
    const admission = new Admission(
      { ...GUARD, maxConcurrent: 1, maxQueue: 0 },
      UPSTREAM_ADMISSION,
    );
    const channel = new FakeChannel(() => undefined);
    const abort = new AbortController();
    const guarded = await open(channel, { admission });
    const first = guarded.request('tools/call', { name: 'slow' }, { signal: abort.signal });
    await expect(guarded.request('tools/call', { name: 'next' })).rejects.toMatchObject({
      reason: 'queue-full',
    });
    expect(channel.sent).toEqual(['tools/call']);
    abort.abort('done');
    await expect(first).rejects.toMatchObject({ kind: 'cancelled' });
    expect(admission.state()).toMatchObject({ inFlight: 0, circuit: { failures: 0 } });
  });

  it('fails a channel that never opens within the timeout, and counts it against the upstream', async () => {
    const admission = new Admission({ ...GUARD, failureThreshold: 1 }, UPSTREAM_ADMISSION);
    const channel = new FakeChannel(() => ({}));
    channel.startsNever = true;
    await expect(open(channel, { admission, timeoutMs: 30 })).rejects.toMatchObject({
      kind: 'timeout',
      message: 'no answer within 30 ms',
    });
    expect(admission.state().circuit.state).toBe('open');
  });
});
