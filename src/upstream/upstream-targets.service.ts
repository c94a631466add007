import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretSettings } from '../config/slices/secrets.settings';
import { Gateway } from '../gateways/gateway.entity';
import { openApiSourceOf } from './openapi/openapi-documents';
import { openCredentials } from './upstream-credentials';
import { stdioLaunchOf } from './transport/stdio/stdio-process';
import { UpstreamFailure } from './upstream-error';
import {
  endpointHashOf,
  storedEraOf,
  type UpstreamGateway,
  type UpstreamTarget,
} from './upstream-target';

/** Turns gateways into upstream targets, with their credentials opened. */
export abstract class UpstreamTargets {
  constructor(private readonly config: SecretSettings) {}

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
  abstract find(gatewayId: string): Promise<UpstreamTarget | null>;
}

/** The targets of the gateways in Portico's database. */
@Injectable()
export class StoredUpstreamTargets extends UpstreamTargets {
  constructor(
    private readonly dataSource: DataSource,
    config: SecretSettings,
  ) {
    super(config);
  }

  async find(gatewayId: string): Promise<UpstreamTarget | null> {
    const gateway = await this.dataSource
      .getRepository(Gateway)
      .findOneBy({ id: gatewayId, enabled: true });
    return gateway ? this.targetOf(gateway) : null;
  }
}

/** For a process without Portico's database: no gateway is stored, so none is active. */
export class NoStoredTargets extends UpstreamTargets {
  find(): Promise<UpstreamTarget | null> {
    return Promise.resolve(null);
  }
}
