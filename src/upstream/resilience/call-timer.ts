/**
 * The upstream timeout of one call: restarted by each sign of life from the upstream, and paused
 * while the downstream client answers a request the upstream made during the call (the wait is on
 * the client then, maybe on a person).
 */
export class CallTimer {
  private timer?: NodeJS.Timeout;
  private clientAnswersPending = 0;
  private stopped = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: () => void,
  ) {
    this.restart();
  }

  restart(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.clientAnswersPending > 0) return;
    this.timer = setTimeout(() => {
      this.stopped = true;
      this.onTimeout();
    }, this.timeoutMs);
  }

  /** Pauses the timer until the client's `answer` settles, either way. */
  pauseFor(answer: Promise<unknown>): void {
    this.clientAnswersPending++;
    clearTimeout(this.timer);
    const resume = () => {
      this.clientAnswersPending--;
      this.restart();
    };
    void answer.then(resume, resume);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
