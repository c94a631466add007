import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretSettings } from '../config/slices/secrets.settings';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { Gateway } from '../gateways/gateway.entity';
import { openCredentials } from '../upstream/upstream-credentials';
import { UpstreamOAuthToken } from '../upstream/oauth/upstream-oauth-token.entity';
import { UpstreamOAuth } from '../upstream/oauth/upstream-oauth.service';
import { SyncLeadership } from './sync-leadership';
import { errorMessage } from '../common/error-message';

/** Tokens expiring within this, or within three sweeps when longer, are looked at. */
const HORIZON_MS = 90_000;

/**
 * Refreshes stored OAuth tokens of upstreams before they expire, even when no call needs them,
 * so that an account nobody used for a while is still connected (refresh tokens often expire when
 * idle). Runs in the leading replica; a refresh another replica runs at the same moment is kept
 * apart by UpstreamOAuth's single flight.
 */
@Injectable()
export class OAuthRefreshScheduler implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OAuthRefreshScheduler.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: SecretSettings,
    private readonly upstreams: UpstreamSettings,
    private readonly leadership: SyncLeadership,
    private readonly oauth: UpstreamOAuth,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.leadership.onChange((leading) => {
      if (this.timer) clearInterval(this.timer);
      this.timer = leading
        ? setInterval(() => {
            this.running = this.tick();
          }, this.everyMs).unref()
        : null;
    });
  }

  /** How often the leader looks for tokens about to expire. */
  private get everyMs(): number {
    return this.upstreams.oauthRefreshSeconds * 1000;
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * One round of the timer. It never rejects: a round that cannot read the tokens (the database
   * refusing connections) is logged, and the next one tries again.
   */
  async tick(): Promise<void> {
    try {
      await this.sweep();
    } catch (error) {
      this.logger.warn(
        `Could not look for OAuth tokens to refresh, will try again in ${this.upstreams.oauthRefreshSeconds} s: ${errorMessage(error)}`,
      );
    }
  }

  /** Refreshes every stored token of an active gateway that is due; failures are recorded. */
  async sweep(): Promise<void> {
    const rows = await this.dataSource
      .getRepository(UpstreamOAuthToken)
      .createQueryBuilder('token')
      .innerJoinAndMapOne('token.gateway', Gateway, 'gateway', 'gateway.id = token.gateway_id')
      .where('token.tokens IS NOT NULL')
      // Each token in the horizon is refreshed once it is due (see UpstreamOAuth).
      .andWhere('token.expires_at < :horizon', {
        horizon: new Date(Date.now() + Math.max(HORIZON_MS, 3 * this.everyMs)),
      })
      .andWhere('gateway.enabled')
      .andWhere("gateway.auth_type = 'oauth'")
      .getMany();
    for (const row of rows) {
      const gateway = row.gateway!;
      try {
        const settings = openCredentials(this.config.encryptionKey, gateway);
        if (settings.type !== 'oauth' || gateway.url === null) continue;
        await this.oauth.accessToken(
          { gatewayId: gateway.id, url: gateway.url, settings },
          row.owner,
        );
      } catch (error) {
        this.logger.warn(
          `Could not refresh an OAuth token of gateway '${gateway.name}': ${errorMessage(error)}`,
        );
      }
    }
  }
}
