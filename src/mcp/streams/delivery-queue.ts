import { Logger } from '@nestjs/common';
import { errorMessage } from '../../common/error-message';
import { STREAM_BACKLOG_BYTES } from './sse-response';

const logger = new Logger('DeliveryQueue');

/** What holding a message costs beyond its text (its closures and promises), counted against the bound. */
export const HOLDING_BYTES = 512;

/** What bytes a set of queues holds together, and may: the replica's, unless a test makes its own. */
export class BacklogBudget {
  held = 0;

  constructor(readonly limit: number) {}
}

/**
 * What all of a replica's streams may hold waiting at once: many sessions, each within its own
 * bound, must not together fill the replica's memory.
 */
const REPLICA_BACKLOG = new BacklogBudget(256 * 1024 * 1024);

/**
 * Notifications a client needs once however often they come while one waits: a resource's update
 * (the same URI), a list's change. Their text is the key; one waiting makes the next a no-op.
 */
const ONCE = new Set([
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
]);

/** The key under which `message` waits once (its text), or undefined when each counts. */
export function onceKey(message: object, text: string): string | undefined {
  return 'method' in message && ONCE.has(message.method as string) ? text : undefined;
}

/**
 * The messages of one stream, delivered one after another (each is stored for resumption before
 * it is written), holding at most `limit` bytes of them not yet delivered (each message's size
 * as JSON text, which the caller has made once for the store and the stream, and HOLDING_BYTES).
 * A message past the limit, or past what the replica's streams may hold together (`budget`), is
 * refused (`add` is false): an upstream that sends faster than the client reads, or than the
 * messages can be stored, must not make the replica hold all it sends.
 * A larger message is taken when nothing waits (the upstream's message limit bounds it), and the
 * stream's answer always gets in (`always`), so that it cannot be lost to what came before it. A
 * message with a `once` key (`onceKey`) that is already waiting is taken and dropped: a chatty
 * upstream's updates of one resource hold one place, not one per update.
 */
export class DeliveryQueue {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  private refused = false;
  private readonly waiting = new Set<string>();

  constructor(
    private readonly limit = STREAM_BACKLOG_BYTES,
    private readonly budget = REPLICA_BACKLOG,
  ) {}

  add(bytes: number, deliver: () => Promise<void>, always = false, once?: string): boolean {
    if (once !== undefined && this.waiting.has(once)) return true;
    const cost = bytes + HOLDING_BYTES;
    const behind = this.pending > 0 && this.pending + cost > this.limit;
    if (!always && (behind || this.budget.held + cost > this.budget.limit)) {
      if (!this.refused)
        logger.warn(
          behind
            ? `Refused a message of a stream more than ${this.limit} bytes behind`
            : `Refused a message of a stream: the replica's streams hold ${this.budget.limit} bytes waiting`,
        );
      this.refused = true;
      return false;
    }
    this.pending += cost;
    this.budget.held += cost;
    if (once !== undefined) this.waiting.add(once);
    const run =
      once === undefined
        ? deliver
        : () => {
            this.waiting.delete(once);
            return deliver();
          };
    this.tail = this.tail
      .then(run)
      .catch((error: unknown) =>
        logger.warn(`A stream's message was not delivered: ${errorMessage(error)}`),
      )
      .finally(() => {
        this.pending -= cost;
        this.budget.held -= cost;
      });
    return true;
  }
}
