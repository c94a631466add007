import { type JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * What a session needs of the transport, which implements it: where the messages about one
 * client request go, and the event streams a client holds open.
 */

/** Where the messages about one client request go. */
export interface Exchange {
  /** A notification or request about the client's request, before its answer. */
  write(message: JSONRPCMessage): void;
  /** The answer; nothing more goes out after it. */
  finish(message: JSONRPCMessage): void;
  /** Ends the exchange with no answer: the client cancelled the request, and gets none. */
  cancel(): void;
}

/** Keeps the messages of streams for clients that reconnect with `Last-Event-ID`. */
export interface StreamSink {
  /** Stores a message of a stream (`text`: it as JSON, when made already); resolves with its event id. */
  store(streamId: string, message: JSONRPCMessage, text?: string): Promise<string>;
  /**
   * A message of a stream whose client connection is gone, for wherever the client resumes it;
   * `final` ends that stream.
   */
  forward(streamId: string, eventId: string, message: JSONRPCMessage, final: boolean): void;
}

/** An event stream a client holds open. */
export interface ClientStream {
  readonly open: boolean;
  onClose(listener: () => void): void;
  /** An event with no message, so the client holds an id to resume from (SEP-1699). */
  prime(id: string): void;
  /** `text`: the message as JSON, when made already. */
  message(message: JSONRPCMessage, id?: string, text?: string): void;
  end(): void;
}

/** The event id that primes a stream: resuming from it replays all of the stream. */
export function primingId(streamId: string): string {
  return `${streamId}.0`;
}

/**
 * Who opened a stream: a stream outlives the request that opened it, so it is ended when that
 * credential is revoked (the client reconnects, and is checked again).
 */
export interface StreamOwner {
  subject: string;
  /** The API token or OAuth grant it came from, if any. */
  tokenId: string | null;
}
