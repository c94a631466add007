import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/client';
import { StubChannel } from '../../../test/support/stub-channel';
import { waitFor } from '../../../test/support/wait-for';
import { type ChannelRequestOptions } from '../transport/channel';
import { ModernListen } from './modern-listen';

/**
 * An upstream's listens: each is acknowledged with what `honour` keeps of its filter; the first
 * `endEarly` of them end with their result 50 ms later, the rest stay open until aborted.
 */
class ListenChannel extends StubChannel {
  readonly filters: Record<string, unknown>[] = [];

  constructor(
    private readonly endEarly: number,
    private readonly honour: (filter: Record<string, unknown>) => unknown = (filter) => filter,
  ) {
    super();
  }

  request(message: JSONRPCRequest, options: ChannelRequestOptions): Promise<JSONRPCResponse> {
    const filter = message.params?.notifications as Record<string, unknown>;
    this.filters.push(filter);
    const echoed = this.honour(filter);
    options.onMessage({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { [SUBSCRIPTION_ID_META_KEY]: message.id },
        ...(echoed === undefined ? {} : { notifications: echoed }),
      },
    });
    const result = { jsonrpc: '2.0', id: message.id, result: {} } as JSONRPCResponse;
    if (this.filters.length <= this.endEarly)
      return new Promise((resolve) => setTimeout(() => resolve(result), 50));
    return new Promise((_, reject) =>
      options.signal.addEventListener('abort', () => reject(new Error('closed'))),
    );
  }
}

function listenOn(channel: ListenChannel, listChanges: boolean) {
  const heard: JSONRPCNotification[] = [];
  const closing = new AbortController();
  let id = 0;
  const listen = new ModernListen({
    channel,
    nextId: () => ++id,
    listChanges,
    listener: { notification: (message) => heard.push(message) },
    closing: closing.signal,
    envelope: () => ({}),
    lose: (error) => {
      throw error;
    },
  });
  return { listen, heard, close: () => closing.abort() };
}

const settled = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Until the upstream has seen `count` listens and the last one's acknowledgement was heard. */
const listened = (channel: ListenChannel, count: number) =>
  waitFor(() => channel.filters.length >= count, `${count} listens`).then(() => settled(20));

describe('ModernListen', () => {
  it('tells its holder, once a listen the upstream ended is listened to again, what it may have missed', async () => {
    const channel = new ListenChannel(2);
    const { listen, heard, close } = listenOn(channel, true);
    await listen.open();
    await listen.subscription('resources/subscribe', 'file:///a', true);
    // The first listen was replaced by one that also follows the resource: nothing was missed.
    expect(heard).toEqual([]);
    await listened(channel, 3);
    close();
    // The second ended early; the third, 0.5 s later, hears what the gap may have hidden.
    expect(channel.filters).toHaveLength(3);
    expect(heard.map((message) => [message.method, message.params?.uri])).toEqual([
      ['notifications/tools/list_changed', undefined],
      ['notifications/prompts/list_changed', undefined],
      ['notifications/resources/list_changed', undefined],
      ['notifications/resources/updated', 'file:///a'],
    ]);
  });

  it('tells it on the first listen acknowledged after the gap, opened for a new subscription too', async () => {
    const channel = new ListenChannel(1);
    const { listen, heard, close } = listenOn(channel, true);
    await listen.open();
    await settled(100);
    // The first listen has ended; before it is listened to again, a subscription opens another.
    await listen.subscription('resources/subscribe', 'file:///c', true);
    // The ended listen's own wait (0.5 s) finds it replaced, and opens none.
    await settled(600);
    close();
    expect(channel.filters).toHaveLength(2);
    expect(heard.map((message) => message.params?.uri ?? message.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'file:///c',
    ]);
  });

  it('makes up only what the new listen asked for and the upstream honoured', async () => {
    const channel = new ListenChannel(1, (filter) => ({
      toolsListChanged: filter.toolsListChanged,
      resourceSubscriptions: [],
    }));
    const { listen, heard, close } = listenOn(channel, true);
    await listen.open();
    await listened(channel, 2);
    close();
    expect(heard.map((message) => message.method)).toEqual(['notifications/tools/list_changed']);
  });

  it('takes an acknowledgement that names no filter as honouring all that was asked', async () => {
    const channel = new ListenChannel(1, () => undefined);
    const { listen, heard, close } = listenOn(channel, false);
    await listen.subscription('resources/subscribe', 'file:///b', true);
    await listened(channel, 2);
    close();
    expect(heard).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///b' } },
    ]);
  });
});
