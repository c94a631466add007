import { UpstreamFailure, UpstreamTimeout } from '../upstream-error';

/** How long one call may wait for the upstream's next sign of life, and may run in all. */
export interface CallLimits {
  timeoutMs: number;
  maxMs: number;
}

/**
 * The upstream timeouts of one call: the wait for the upstream's next sign of life, restarted by
 * each one, within the longest the call may run however often the upstream says it is still at it
 * (the MCP spec's maximum). Both pause while the downstream client answers a request the upstream
 * made during the call: the wait is on the client then, maybe on a person.
 */
export class CallTimer {
  private timer?: NodeJS.Timeout;
  private clientAnswersPending = 0;
  private stopped = false;
  /** The upstream's time before the last pause, and when its time last resumed. */
  private spentMs = 0;
  private resumedAt = performance.now();

  constructor(
    private readonly limits: CallLimits,
    private readonly onTimeout: (failure: UpstreamFailure) => void,
  ) {
    this.restart();
  }

  restart(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.clientAnswersPending > 0) return;
    const { timeoutMs, maxMs } = this.limits;
    const leftMs = maxMs - this.spentMs - (performance.now() - this.resumedAt);
    const overrun = leftMs < timeoutMs;
    this.timer = setTimeout(
      () => {
        this.stopped = true;
        this.onTimeout(
          overrun
            ? new UpstreamFailure(
                'timeout',
                `still running after ${maxMs} ms, the longest a call may run`,
              )
            : new UpstreamTimeout(timeoutMs),
        );
      },
      Math.max(0, overrun ? leftMs : timeoutMs),
    );
  }

  /** Pauses the timer until the client's `answer` settles, either way. */
  pauseFor(answer: Promise<unknown>): void {
    if (this.clientAnswersPending++ === 0) this.spentMs += performance.now() - this.resumedAt;
    clearTimeout(this.timer);
    const resume = () => {
      if (--this.clientAnswersPending === 0) this.resumedAt = performance.now();
      this.restart();
    };
    void answer.then(resume, resume);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
