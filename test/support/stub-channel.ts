import { type JSONRPCRequest, type JSONRPCResponse } from '@modelcontextprotocol/client';
import {
  type Channel,
  type ChannelListener,
  type ChannelRequestOptions,
} from '../../src/upstream/transport/channel';

/** A channel for connection specs: `request` is the spec's, everything else resolves at once. */
export abstract class StubChannel implements Channel {
  start(_listener: ChannelListener): Promise<void> {
    return Promise.resolve();
  }

  abstract request(
    message: JSONRPCRequest,
    options: ChannelRequestOptions,
  ): Promise<JSONRPCResponse>;

  send(): Promise<void> {
    return Promise.resolve();
  }

  established(): void {}

  listen(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
