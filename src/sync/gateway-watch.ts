import { type Logger } from '@nestjs/common';
import {
  type UpstreamClient,
  type UpstreamGateway,
  upstreamFingerprint,
} from '../upstream/upstream.client';
import { upstreamError } from '../upstream/upstream-error';
import { type UpstreamSession } from '../upstream/upstream-session';
import { Debouncer } from './debouncer';

/** A burst of list_changed notifications gives one sync once quiet this long... */
export const LIST_CHANGED_QUIET_MS = 300;
/** ...or this long after the burst began, whichever comes first. */
export const LIST_CHANGED_MAX_WAIT_MS = 3000;
const PING_INTERVAL_MS = 30_000;
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 60_000;

export interface WatchedGateway extends UpstreamGateway {
  id: string;
}

/** What a watch reports about its upstream. */
export interface WatchListener {
  /** The tool list may have changed: list_changed, or a reconnect after missing notifications. */
  changed(reason: string): void;
  /** The upstream cannot be reached, or the session to it was lost. */
  lost(reason: string): void;
  /** A ping was answered. */
  seen(): void;
}

/**
 * Keeps one session open to one upstream to hear `notifications/tools/list_changed`. It pings the
 * upstream now and then, reconnects with backoff when the session is lost, and asks for a sync
 * after reconnecting, since notifications sent meanwhile (an upstream restarted with new tools)
 * were missed.
 */
export class GatewayWatch {
  readonly fingerprint: string;
  private readonly debouncer: Debouncer;
  private readonly abort = new AbortController();
  private session: UpstreamSession | null = null;
  private wake: (() => void) | null = null;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    readonly gateway: WatchedGateway,
    private readonly upstream: UpstreamClient,
    private readonly listener: WatchListener,
    private readonly logger: Logger,
  ) {
    this.fingerprint = upstreamFingerprint(gateway);
    this.debouncer = new Debouncer(
      () => listener.changed('list_changed'),
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
    // Closing before aborting lets the session say goodbye to the upstream (DELETE) first.
    await this.session?.close();
    this.abort.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    let backoff = BACKOFF_MIN_MS;
    let missedChanges = false;
    while (!this.stopped) {
      try {
        this.session = await this.upstream.open(this.gateway, {
          signal: this.abort.signal,
          onToolsChanged: () => this.debouncer.poke(),
        });
        backoff = BACKOFF_MIN_MS;
        if (missedChanges && !this.stopped) this.listener.changed('reconnected');
        missedChanges = true;
        const reason = await this.watch(this.session);
        if (reason && !this.stopped) {
          this.logger.debug(`Watch of gateway ${this.gateway.id} lost: ${reason}`);
          this.listener.lost(`lost the connection: ${reason}`);
        }
      } catch (error) {
        missedChanges = true;
        if (!this.stopped) {
          const reason = upstreamError(error, this.upstream.timeoutMs).message;
          this.logger.debug(`Watch of gateway ${this.gateway.id} cannot connect: ${reason}`);
          this.listener.lost(reason);
        }
      } finally {
        await this.session?.close();
        this.session = null;
      }
      await this.sleep(backoff);
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }

  /** Returns when the session is lost (with the reason) or the watch stops. */
  private async watch(session: UpstreamSession): Promise<string | null> {
    const state: { lost: string | null; watching: boolean } = { lost: null, watching: true };
    void session.lost.then((reason) => {
      state.lost = reason.message;
      if (state.watching) this.wake?.();
    });
    try {
      while (!this.stopped && state.lost === null) {
        await this.sleep(PING_INTERVAL_MS);
        if (this.stopped || state.lost !== null) break;
        try {
          await session.ping();
        } catch (error) {
          return `ping failed: ${upstreamError(error, this.upstream.timeoutMs).message}`;
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
