import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { type Page } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { type ToolListQueryDto } from './dto/tool-list-query.dto';
import { type ToolResponseDto } from './dto/tool-response.dto';
import { type ToolUpdateDto } from './dto/tool-update.dto';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { ToolPresenter } from './tool.presenter';
import { Tool } from './tool.entity';
import { ToolErrorCode, ToolException } from './tool.exception';

@Injectable()
export class ToolsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly presenter: ToolPresenter,
    private readonly bus: EventBus,
  ) {}

  /** Tools of the gateways this scope sees. */
  async list(query: ToolListQueryDto, scope: TeamScope): Promise<Page<ToolResponseDto>> {
    const qb = this.scoped(scope);
    if (query.gatewayId)
      qb.andWhere('tool.gateway_id = :gatewayId', { gatewayId: query.gatewayId });
    if (query.q) this.names.whereMatches(qb, query.q);
    this.names.orderByName(qb).skip(query.offset).take(query.limit);
    const [tools, total] = await qb.getManyAndCount();
    return { items: tools.map((tool) => this.presenter.toResponse(tool)), total };
  }

  async get(id: string, scope: TeamScope): Promise<ToolResponseDto> {
    return this.presenter.toResponse(await this.visible(id, scope));
  }

  /**
   * These tools, ordered by virtual name; for a server's member list. Unknown ids are skipped, and
   * so are malformed ones: callers pass ids straight from forms, and Postgres would refuse the
   * whole query over one that is not a UUID.
   */
  async getMany(ids: string[]): Promise<ToolResponseDto[]> {
    const wellFormed = ids.filter((id) => isUUID(id));
    if (wellFormed.length === 0) return [];
    const qb = this.dataSource
      .getRepository(Tool)
      .createQueryBuilder('tool')
      .where('tool.id = ANY(:ids)', { ids: wellFormed });
    const tools = await this.names.orderByName(qb).getMany();
    return tools.map((tool) => this.presenter.toResponse(tool));
  }

  async getByName(name: string, scope: TeamScope): Promise<ToolResponseDto> {
    const qb = this.scoped(scope);
    const tool = await this.names.whereNameIs(qb, name).getOne();
    if (!tool) throw new ToolException(ToolErrorCode.NotFound, `No tool is named '${name}'.`);
    return this.presenter.toResponse(tool);
  }

  async update(id: string, dto: ToolUpdateDto, scope: TeamScope): Promise<ToolResponseDto> {
    const tool = await this.visible(id, scope);
    scope.assertManage(tool.gateway!.teamId, `The gateway of '${tool.originalName}'`);
    if (dto.enabled !== undefined) tool.enabled = dto.enabled;
    if (dto.appConfig !== undefined) tool.appConfig = dto.appConfig;
    const saved = await this.dataSource.getRepository(Tool).save(tool);
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [tool.gatewayId] });
    return this.presenter.toResponse(saved);
  }

  /** The tool with its gateway, if this scope sees the gateway; 404 otherwise. */
  async visible(id: string, scope: TeamScope): Promise<Tool> {
    const tool = await this.dataSource
      .getRepository(Tool)
      .findOne({ where: { id }, relations: { gateway: true } });
    if (!tool?.gateway || !scope.canSee(tool.gateway.teamId))
      throw new ToolException(ToolErrorCode.NotFound, `Tool ${id} does not exist.`);
    return tool;
  }

  /** A query of the tools whose gateway this scope sees. */
  private scoped(scope: TeamScope): SelectQueryBuilder<Tool> {
    const qb = this.dataSource.getRepository(Tool).createQueryBuilder('tool');
    return scope.visibleThrough(qb, 'tool.gateway_id', 'gateway');
  }

  async find(id: string): Promise<Tool> {
    const tool = await this.dataSource.getRepository(Tool).findOneBy({ id });
    if (!tool) throw new ToolException(ToolErrorCode.NotFound, `Tool ${id} does not exist.`);
    return tool;
  }
}
