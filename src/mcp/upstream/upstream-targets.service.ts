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
    const gateway = await this.dataSource
      .getRepository(Gateway)
      .findOneBy({ id: gatewayId, enabled: true });
    if (!gateway)
      throw new RpcError(UPSTREAM_UNAVAILABLE, 'The gateway of this tool is no longer active');
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
