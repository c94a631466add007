import { isDeepStrictEqual } from 'node:util';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Gateway } from '../../gateways/gateway.entity';
import { GatewaysService } from '../../gateways/gateways.service';
import { UPSTREAM_UNAVAILABLE, RpcError } from '../mcp-errors';
import { type UpstreamTarget } from './proxy-session';

/** Where and how to reach a gateway's upstream; read when a session first needs it. */
@Injectable()
export class UpstreamTargets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly gateways: GatewaysService,
  ) {}

  async get(gatewayId: string): Promise<UpstreamTarget> {
    const target = await this.find(gatewayId);
    if (!target)
      throw new RpcError(UPSTREAM_UNAVAILABLE, 'The gateway of this tool is no longer active');
    return target;
  }

  /** The active gateway's target; null when it is gone or deactivated. */
  async find(gatewayId: string): Promise<UpstreamTarget | null> {
    const gateway = await this.dataSource
      .getRepository(Gateway)
      .findOneBy({ id: gatewayId, enabled: true });
    if (!gateway) return null;
    return {
      gatewayId,
      slug: gateway.slug,
      endpoint: {
        url: gateway.url,
        transport: gateway.transport,
        credentials: this.gateways.credentials(gateway),
      },
    };
  }
}

/** Whether an upstream session opened for `before` still serves `after` (null: no longer active). */
export function sameTarget(before: UpstreamTarget, after: UpstreamTarget | null): boolean {
  return after !== null && isDeepStrictEqual(before.endpoint, after.endpoint);
}
