import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretSettings } from '../config/slices/secrets.settings';
import {
  Gateway,
  openApiSourceOf,
  openCredentials,
  stdioLaunchOf,
} from '../gateways/gateway.entity';
import { UpstreamFailure } from './upstream-error';
import {
  endpointHashOf,
  storedEraOf,
  type UpstreamGateway,
  type UpstreamTarget,
} from './upstream-target';

/** Turns gateways into upstream targets, with their credentials opened. */
@Injectable()
export class UpstreamTargets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: SecretSettings,
  ) {}

  targetOf(gateway: UpstreamGateway): UpstreamTarget {
    let credentials;
    let stdio;
    try {
      credentials = openCredentials(this.config.encryptionKey, gateway);
      stdio = stdioLaunchOf(this.config.encryptionKey, gateway);
    } catch {
      throw new UpstreamFailure(
        'unreachable',
        'the stored upstream credentials cannot be decrypted; was ENCRYPTION_KEY changed?',
      );
    }
    return {
      gatewayId: gateway.id,
      slug: gateway.slug,
      endpoint: {
        url: gateway.url,
        transport: gateway.transport,
        credentials,
        stdio,
        eraPin: gateway.eraPin,
        openapi: openApiSourceOf(gateway),
      },
      storedEra: storedEraOf(gateway),
      endpointHash: endpointHashOf(gateway),
      settings: gateway.settings ?? null,
    };
  }

  /** The active gateway's target; null when it is gone or deactivated. */
  async find(gatewayId: string): Promise<UpstreamTarget | null> {
    const gateway = await this.dataSource
      .getRepository(Gateway)
      .findOneBy({ id: gatewayId, enabled: true });
    return gateway ? this.targetOf(gateway) : null;
  }
}
