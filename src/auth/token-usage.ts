import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

const FLUSH_MS = 10_000;

/**
 * When API tokens were last used, kept in memory and written in one statement every few seconds:
 * a write per request would put a database round trip on every tools/call.
 */
@Injectable()
export class TokenUsage implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TokenUsage.name);
  private pending = new Map<string, Date>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  touch(tokenId: string, at = new Date()): void {
    this.pending.set(tokenId, at);
  }

  /** Writes what was used since the last flush; a failed write is logged and retried next time. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.dataSource.query(
        `UPDATE api_token AS t SET last_used_at = u.at
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
          WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.at)`,
        [[...batch.keys()], [...batch.values()].map((at) => at.toISOString())],
      );
    } catch (error) {
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.logger.warn(`Could not record token use: ${(error as Error).message}`);
    }
  }
}
