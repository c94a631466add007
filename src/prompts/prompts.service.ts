import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { type Page } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { type PromptListQueryDto } from './dto/prompt-list-query.dto';
import { type PromptResponseDto } from './dto/prompt-response.dto';
import { type PromptUpdateDto } from './dto/prompt-update.dto';
import { PromptPresenter } from './prompt.presenter';
import { Prompt } from './prompt.entity';
import { PromptErrorCode, PromptException } from './prompt.exception';

const ALIAS = 'prompt';

/**
 * The registry's prompts, as the REST API and admin pages read them. A scope sees the prompts of
 * the gateways it sees, and changes those of the gateways it manages, as with tools.
 */
@Injectable()
export class PromptsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly presenter: PromptPresenter,
    private readonly bus: EventBus,
  ) {}

  async list(query: PromptListQueryDto, scope: TeamScope): Promise<Page<PromptResponseDto>> {
    const qb = scope.visibleThrough(
      this.dataSource.getRepository(Prompt).createQueryBuilder(ALIAS),
      'prompt.gateway_id',
      'gateway',
    );
    if (query.gatewayId)
      qb.andWhere('prompt.gateway_id = :gatewayId', { gatewayId: query.gatewayId });
    if (query.q) this.names.whereMatches(qb, query.q, ALIAS);
    this.names.orderByName(qb, ALIAS).skip(query.offset).take(query.limit);
    const [prompts, total] = await qb.getManyAndCount();
    return { items: prompts.map((prompt) => this.presenter.toResponse(prompt)), total };
  }

  async get(id: string, scope: TeamScope): Promise<PromptResponseDto> {
    return this.presenter.toResponse(await this.find(id, scope));
  }

  /**
   * These prompts, ordered by virtual name; for a server's member list. Unknown and malformed ids
   * are skipped: callers pass ids straight from forms.
   */
  async getMany(ids: string[]): Promise<PromptResponseDto[]> {
    const wellFormed = ids.filter((id) => isUUID(id));
    if (wellFormed.length === 0) return [];
    const qb = this.dataSource
      .getRepository(Prompt)
      .createQueryBuilder(ALIAS)
      .where('prompt.id = ANY(:ids)', { ids: wellFormed });
    const prompts = await this.names.orderByName(qb, ALIAS).getMany();
    return prompts.map((prompt) => this.presenter.toResponse(prompt));
  }

  async update(id: string, dto: PromptUpdateDto, scope: TeamScope): Promise<PromptResponseDto> {
    const prompt = await this.find(id, scope);
    scope.assertManage(prompt.gateway!.teamId, `The gateway of '${prompt.originalName}'`);
    prompt.enabled = dto.enabled;
    const saved = await this.dataSource.getRepository(Prompt).save(prompt);
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [prompt.gatewayId] });
    return this.presenter.toResponse(saved);
  }

  /** The prompt with its gateway, if this scope sees the gateway; 404 otherwise. */
  private async find(id: string, scope: TeamScope): Promise<Prompt> {
    const prompt = await this.dataSource
      .getRepository(Prompt)
      .findOne({ where: { id }, relations: { gateway: true } });
    if (!prompt?.gateway || !scope.canSee(prompt.gateway.teamId))
      throw new PromptException(PromptErrorCode.NotFound, `Prompt ${id} does not exist.`);
    return prompt;
  }
}
