import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { Prompt } from './prompt.entity';

/** The prompts the MCP endpoints serve: enabled ones of enabled gateways. */
@Injectable()
export class ServedPromptsQuery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
  ) {}

  /** Every served prompt, or a virtual server's members among them; by virtual name. */
  ofScope(serverId: string | null): Promise<Prompt[]> {
    const qb = this.dataSource
      .getRepository(Prompt)
      .createQueryBuilder('prompt')
      .innerJoin('prompt.gateway', 'gateway', 'gateway.enabled = true')
      .where('prompt.enabled = true')
      .andWhere('prompt.quarantine IS NULL');
    if (serverId !== null)
      qb.innerJoin(
        'server_prompt',
        'membership',
        'membership.prompt_id = prompt.id AND membership.server_id = :serverId',
        { serverId },
      );
    return this.names.orderByName(qb, 'prompt').getMany();
  }
}
