import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretSettings } from '../config/slices/secrets.settings';
import { Gateway } from '../gateways/gateway.entity';
import { stdioLaunchOf } from './transport/stdio/stdio-process';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';
import { type EraVerdict } from './eras/protocol-era';
import { launchKey } from './transport/stdio/stdio-process';
import { type UpstreamTarget } from './upstream-target';

/**
 * What talking to an upstream writes back on its gateway's row: the era verdict (for the other
 * replicas and restarts) and how a stdio upstream starts. Both are best effort: a failure to
 * write is the caller's to log, never a failed call.
 */
export abstract class GatewayRecords {
  abstract recordEra(target: UpstreamTarget, verdict: EraVerdict): Promise<void>;

  /**
   * How a stdio gateway starts (null: fine), unless it was edited since the launch `key` was
   * taken: a session or watch still on the old command does not speak for the new one.
   */
  abstract recordStdioHealth(gatewayId: string, key: string, error: string | null): Promise<void>;
}

/** The gateway rows of Portico's database. */
@Injectable()
export class GatewayRowRecords extends GatewayRecords {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: SecretSettings,
  ) {
    super();
  }

  async recordEra(target: UpstreamTarget, verdict: EraVerdict): Promise<void> {
    await this.dataSource.getRepository(Gateway).update(target.gatewayId, {
      protocolEra: verdict.era,
      protocolVersion: verdict.version,
      protocolSupportedVersions: verdict.supportedVersions,
      protocolExtensions: verdict.extensions ?? null,
      protocolCheckedAt: verdict.checkedAt,
      protocolEndpoint: target.endpointHash ?? null,
      ...KEEP_UPDATED_AT,
    });
  }

  async recordStdioHealth(gatewayId: string, key: string, error: string | null): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const gateways = em.getRepository(Gateway);
      const gateway = await gateways.findOne({
        where: { id: gatewayId },
        lock: { mode: 'pessimistic_write' },
      });
      const current = gateway && stdioLaunchOf(this.config.encryptionKey, gateway);
      if (!current || launchKey(current) !== key) return;
      await gateways.update(gatewayId, {
        ...(error === null
          ? { status: 'healthy', lastError: null, lastSeenAt: new Date() }
          : { status: 'unreachable', lastError: error }),
        ...KEEP_UPDATED_AT,
      });
    });
  }
}

/** For an upstream reached without a gateway row (`portico upstream`): nothing is written. */
export class NoGatewayRecords extends GatewayRecords {
  recordEra(): Promise<void> {
    return Promise.resolve();
  }

  recordStdioHealth(): Promise<void> {
    return Promise.resolve();
  }
}
