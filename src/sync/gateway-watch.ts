import { type Logger } from '@nestjs/common';
import { type UpstreamConnection } from '../upstream/upstream-connection';
import { upstreamFailure } from '../upstream/upstream-error';
import { type UpstreamGateway, upstreamFingerprint } from '../upstream/upstream-target';
import { type UpstreamList } from '../events/event-bus';
import { type CatalogueReader } from './catalogue.reader';
import { Debouncer } from './debouncer';
import { failedStatus, type FailedStatus } from './failed-status';

/** A burst of list_changed notifications gives one sync once quiet this long... */
export const LIST_CHANGED_QUIET_MS = 300;
/** ...or this long after the burst began, whichever comes first. */
export const LIST_CHANGED_MAX_WAIT_MS = 3000;
export const PING_INTERVAL_MS = 30_000;
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 60_000;

export type WatchedGateway = UpstreamGateway;

/** What a watch reports about its upstream. */
export interface WatchListener {
  /**
   * The catalogue may have changed: the upstream said these lists changed (a burst of list_changed
   * notifications), or it reconnected after missing notifications (no lists).
   */
  changed(reason: string, lists: readonly UpstreamList[]): void;
  /**
   * The upstream cannot be reached, or the session to it was lost, or it answers only with errors
   * or with versions of MCP that Portico does not speak: `status` says which.
   */
  lost(reason: string, status: FailedStatus): void;
  /** A ping was answered. */
  seen(): void;
}

/**
 * Keeps one session open to one upstream to hear `notifications/tools/list_changed` (on a
 * 2026-07-28 upstream, a `subscriptions/listen` for list changes instead). It pings the
 * upstream now and then, reconnects with backoff when the session is lost, and asks for a sync
 * after reconnecting, since notifications sent meanwhile (an upstream restarted with new tools)
 * were missed.
 */
export class GatewayWatch {
  readonly fingerprint: string;
  private readonly debouncer: Debouncer;
  /** The lists the upstream said changed in the burst the debouncer is waiting out. */
  private readonly announced = new Set<UpstreamList>();
  private readonly abort = new AbortController();
  private session: UpstreamConnection | null = null;
  private wake: (() => void) | null = null;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    readonly gateway: WatchedGateway,
    private readonly reader: CatalogueReader,
    private readonly listener: WatchListener,
    private readonly logger: Logger,
    private readonly pingIntervalMs = PING_INTERVAL_MS,
  ) {
    this.fingerprint = upstreamFingerprint(gateway);
    this.debouncer = new Debouncer(
      () => {
        const lists = [...this.announced];
        this.announced.clear();
        listener.changed('list_changed', lists);
      },
      LIST_CHANGED_QUIET_MS,
      LIST_CHANGED_MAX_WAIT_MS,
    );
  }

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.debouncer.cancel();
    this.wake?.();
    // A ping in flight is cancelled, so that the session says goodbye to the upstream at once.
    this.abort.abort();
    await this.session?.close();
    await this.running;
  }

  private async loop(): Promise<void> {
    let backoff = BACKOFF_MIN_MS;
    let missedChanges = false;
    while (!this.stopped) {
      try {
        this.session = await this.connected();
        if (!this.session) return;
        backoff = BACKOFF_MIN_MS;
        if (missedChanges && !this.stopped) this.listener.changed('reconnected', []);
        missedChanges = true;
        const reason = await this.watch(this.session);
        if (reason && !this.stopped) {
          this.logger.debug(`Watch of gateway ${this.gateway.id} lost: ${reason}`);
          this.listener.lost(`lost the connection: ${reason}`, 'unreachable');
        }
      } catch (error) {
        missedChanges = true;
        if (!this.stopped) {
          const failure = upstreamFailure(error, this.reader.timeoutMs);
          // Portico's own failure says nothing of the upstream's health.
          if (failure.kind === 'internal')
            this.logger.error(`Watch of gateway ${this.gateway.id} failed: ${failure.message}`);
          else {
            this.logger.debug(
              `Watch of gateway ${this.gateway.id} cannot connect: ${failure.message}`,
            );
            this.listener.lost(failure.message, failedStatus(failure));
          }
        }
      } finally {
        await this.session?.close();
        this.session = null;
      }
      await this.sleep(backoff);
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }

  /**
   * The watch's session, or null when the watch stopped first: a hanging upstream must not hold
   * up a replica's shutdown for its timeout. A session that opens after that is closed at once.
   */
  private async connected(): Promise<UpstreamConnection | null> {
    const opening = this.reader.watch(this.gateway, (list) => {
      this.announced.add(list);
      this.debouncer.poke();
    });
    // `stop` wakes the watch from this wait as from its sleeps.
    const stopped = new Promise<null>((resolve) => (this.wake = () => resolve(null)));
    const session = await Promise.race([opening, stopped]);
    if (session === null)
      void opening.then(
        (late) => late.close(),
        () => undefined,
      );
    return session;
  }

  /** Returns when the session is lost (with the reason) or the watch stops. */
  private async watch(session: UpstreamConnection): Promise<string | null> {
    const state: { lost: string | null; watching: boolean } = { lost: null, watching: true };
    void session.lost.then((reason) => {
      state.lost = reason.message;
      if (state.watching) this.wake?.();
    });
    try {
      while (!this.stopped && state.lost === null) {
        await this.sleep(this.pingIntervalMs);
        if (this.stopped || state.lost !== null) break;
        try {
          // Each ping has its own listener on the watch's signal, removed once it is answered.
          await session.request('ping', undefined, { signal: this.abort.signal });
        } catch (error) {
          if (this.stopped) break;
          return `ping failed: ${upstreamFailure(error, this.reader.timeoutMs).message}`;
        }
        this.listener.seen();
      }
      return state.lost;
    } finally {
      state.watching = false;
    }
  }

  /** A sleep that `stop` and a lost session cut short. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const wake = () => done();
      this.wake = wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
