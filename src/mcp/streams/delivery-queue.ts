import { Logger } from '@nestjs/common';
import { errorMessage } from '../../common/error-message';
import { STREAM_BACKLOG_BYTES } from './sse-response';

const logger = new Logger('DeliveryQueue');

/**
 * The messages of one stream, delivered one after another (each is stored for resumption before
 * it is written), holding at most `limit` bytes of them not yet delivered (each message's size
 * as JSON text, which the caller has made once for the store and the stream). A message past the
 * limit is refused (`add` is false): an upstream that sends faster than the client reads, or than
 * the messages can be stored, must not make the replica hold all it sends. A larger message is
 * taken when nothing waits (the upstream's message limit bounds it), and the stream's answer
 * always gets in (`always`), so that it cannot be lost to what came before it.
 */
export class DeliveryQueue {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  private refused = false;

  constructor(private readonly limit = STREAM_BACKLOG_BYTES) {}

  add(bytes: number, deliver: () => Promise<void>, always = false): boolean {
    if (!always && this.pending > 0 && this.pending + bytes > this.limit) {
      if (!this.refused)
        logger.warn(`Refused a message of a stream more than ${this.limit} bytes behind`);
      this.refused = true;
      return false;
    }
    this.pending += bytes;
    this.tail = this.tail
      .then(deliver)
      .catch((error: unknown) =>
        logger.warn(`A stream's message was not delivered: ${errorMessage(error)}`),
      )
      .finally(() => (this.pending -= bytes));
    return true;
  }
}
