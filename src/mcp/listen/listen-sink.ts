import { type JSONRPCNotification } from '@modelcontextprotocol/server';

/**
 * Where a listener's notifications go: a listen's response stream, or a 2025 session's stream.
 * `write` returns false when the sink cannot take more now (a client that does not read); the hub
 * then drops the listener rather than buffer for it. `end` is called once, when the hub ends it.
 */
export interface ListenSink {
  write(message: JSONRPCNotification): boolean;
  end(reason: ListenEnd): void;
}

/**
 * Why the hub ended a listener. `scope-gone` and `shutdown` are graceful ends (answer the listen
 * with its result; close the 2025 session whose server is gone); after `identity-changed`, `slow`,
 * `upstream-lost` and `credential-expired` the stream should just drop, so that a client still
 * entitled listens again.
 */
export type ListenEnd =
  'scope-gone' | 'identity-changed' | 'slow' | 'upstream-lost' | 'credential-expired' | 'shutdown';

/** Why the listen's own stream drops it: an upstream it follows lost, or its credential expired. */
export type ListenDrop = Extract<ListenEnd, 'upstream-lost' | 'credential-expired'>;
