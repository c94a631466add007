import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { Gateway } from '../gateways/gateway.entity';
import { SyncLeadership } from './sync-leadership';
import { inTurns, SyncService } from './sync.service';

/**
 * Syncs every enabled gateway every SYNC_INTERVAL_SECONDS, in the leading replica only. Each
 * interval is jittered by ±20% so that restarts do not line rounds up, and the next round is
 * planned only once the last one has finished.
 */
@Injectable()
export class SyncScheduler implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SyncScheduler.name);
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly config: UpstreamSettings,
    private readonly dataSource: DataSource,
    private readonly leadership: SyncLeadership,
    private readonly sync: SyncService,
  ) {}

  onModuleInit(): void {
    if (this.config.syncIntervalSeconds === 0) return;
    this.unsubscribe = this.leadership.onChange((leading) => {
      if (leading) this.plan();
      else this.cancel();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.cancel();
    await this.round;
  }

  private plan(): void {
    this.cancel();
    if (this.stopped) return;
    const delay = this.config.syncIntervalSeconds * 1000 * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.round = this.runRound()
        .catch((error: unknown) =>
          this.logger.error(
            'Periodic sync round failed',
            error instanceof Error ? error.stack : String(error),
          ),
        )
        .finally(() => {
          if (this.leadership.isLeader && !this.stopped) this.plan();
        });
    }, delay);
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async runRound(): Promise<void> {
    const gateways = await this.dataSource
      .getRepository(Gateway)
      .find({ select: { id: true }, where: { enabled: true } });
    await inTurns(
      gateways.map((gateway) => gateway.id),
      (id) => this.sync.trigger(id, 'periodic'),
      () => this.stopped,
    );
  }
}
