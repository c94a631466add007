import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { type ClientStream } from '../streams/client-stream';
import { STREAM_BACKLOG_BYTES } from '../streams/sse-response';
import { OutgoingStream } from './outgoing-stream';
import { type StoredEvent } from './stream-events.store';

/** A client's stream that keeps the ids of what it was sent until it ends, as an SSE response. */
function keptStream() {
  const sent: string[] = [];
  const stream: ClientStream = {
    open: true,
    onClose: () => undefined,
    prime: () => undefined,
    message: (_message, id) => void (stream.open && sent.push(id ?? '-')),
    end: () => ((stream as { open: boolean }).open = false),
  };
  return { stream, sent };
}

const note = (size: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: 'x'.repeat(size) },
});

/** A replay of one stored page that waits until `release` is called. */
function heldReplay() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  async function* pages(): AsyncGenerator<StoredEvent[]> {
    await held;
    yield [{ eventId: 's.1', message: note(10) }];
  }
  return { pages: pages(), release };
}

describe('OutgoingStream', () => {
  it('sends what arrived live during a replay after it, in order, each once', async () => {
    const { stream, sent } = keptStream();
    const outgoing = new OutgoingStream(stream, { subject: 'user:1' } as never);
    const { pages, release } = heldReplay();
    const replayed = outgoing.replay(pages);
    outgoing.write(note(10), 's.1');
    outgoing.write(note(10), 's.2');
    release();
    await replayed;
    outgoing.write(note(10), 's.3');
    expect(sent).toEqual(['s.1', 's.2', 's.3']);
    expect(stream.open).toBe(true);
  });

  it('ends the stream, holding nothing, once more than its backlog arrived live during a replay', async () => {
    const { stream, sent } = keptStream();
    const outgoing = new OutgoingStream(stream, { subject: 'user:1' } as never);
    const { pages, release } = heldReplay();
    const replayed = outgoing.replay(pages);
    const size = 1024 * 1024;
    for (let n = 0; n <= STREAM_BACKLOG_BYTES / size; n++) outgoing.write(note(size), `s.${n + 2}`);
    expect(stream.open).toBe(false);
    release();
    await replayed;
    // The client resumes from the last id it read: what waited is in the store.
    expect(sent).toEqual([]);
  });
});
