import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Exchange } from './exchange';
import { SessionTransport } from './session-transport';

class RecordingExchange implements Exchange {
  readonly written: JSONRPCMessage[] = [];
  answer: JSONRPCMessage | null = null;
  cancelled = false;

  write(message: JSONRPCMessage): void {
    this.written.push(message);
  }

  finish(message: JSONRPCMessage): void {
    this.answer = message;
  }

  cancel(): void {
    this.cancelled = true;
  }
}

const request = (id: number, method = 'resources/read') => ({
  jsonrpc: '2.0' as const,
  id,
  method,
  params: {},
});

const cancelled = (requestId: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/cancelled',
  params: { requestId },
});

function transport() {
  const relayed: JSONRPCMessage[] = [];
  const received: JSONRPCMessage[] = [];
  const subject = new SessionTransport('session', 'replica', {
    toClient: (message) => relayed.push(message),
    fromClient: (message) => relayed.push(message),
  });
  subject.onmessage = (message) => received.push(message);
  return { subject, relayed, received };
}

describe('SessionTransport', () => {
  it('ends a cancelled request without an answer, and passes the cancellation to the server', async () => {
    const { subject, received } = transport();
    const exchange = new RecordingExchange();
    subject.receiveRequest(request(1), exchange);
    subject.receiveNotification(cancelled(1));
    expect(exchange.cancelled).toBe(true);
    expect(subject.inFlight).toBe(0);
    expect(received).toContainEqual(cancelled(1));
    // Whatever the handler returns later goes nowhere.
    await subject.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(exchange.answer).toBeNull();
  });

  it('aborts a cancelled request it serves itself, and sends no answer for it', async () => {
    const { subject, received } = transport();
    const exchange = new RecordingExchange();
    const abort = new AbortController();
    subject.serve(7, exchange, abort);
    subject.receiveNotification(cancelled(7));
    expect(abort.signal.aborted).toBe(true);
    expect(exchange.cancelled).toBe(true);
    expect(subject.inFlight).toBe(0);
    expect(received).toEqual([]);
    subject.answer({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'cancelled' } });
    expect(exchange.answer).toBeNull();
  });

  it('answers and aborts every request in progress when it closes', async () => {
    const { subject } = transport();
    const served = new RecordingExchange();
    const abort = new AbortController();
    const handled = new RecordingExchange();
    subject.serve(1, served, abort);
    subject.receiveRequest(request(2), handled);
    await subject.close();
    expect(abort.signal.aborted).toBe(true);
    for (const [id, exchange] of [
      [1, served],
      [2, handled],
    ] as const) {
      expect(exchange.answer).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32000, message: 'Session closed' },
      });
    }
    expect(subject.inFlight).toBe(0);
  });
});
