import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { type Page } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { ToolNameQuery } from '../tools/tool-name.query';
import { type PromptListQueryDto } from './dto/prompt-list-query.dto';
import { type PromptResponseDto } from './dto/prompt-response.dto';
import { type PromptUpdateDto } from './dto/prompt-update.dto';
import { PromptPresenter } from './prompt.presenter';
import { Prompt } from './prompt.entity';
import { PromptErrorCode, PromptException } from './prompt.exception';

const ALIAS = 'prompt';

/** The registry's prompts, as the REST API and admin pages read them. */
@Injectable()
export class PromptsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly presenter: PromptPresenter,
    private readonly bus: EventBus,
  ) {}

  async list(query: PromptListQueryDto): Promise<Page<PromptResponseDto>> {
    const qb = this.dataSource.getRepository(Prompt).createQueryBuilder(ALIAS);
    if (query.gatewayId)
      qb.andWhere('prompt.gateway_id = :gatewayId', { gatewayId: query.gatewayId });
    if (query.q) this.names.whereMatches(qb, query.q, ALIAS);
    this.names.orderByName(qb, ALIAS).skip(query.offset).take(query.limit);
    const [prompts, total] = await qb.getManyAndCount();
    return { items: prompts.map((prompt) => this.presenter.toResponse(prompt)), total };
  }

  async get(id: string): Promise<PromptResponseDto> {
    return this.presenter.toResponse(await this.find(id));
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

  async update(id: string, dto: PromptUpdateDto): Promise<PromptResponseDto> {
    const prompt = await this.find(id);
    prompt.enabled = dto.enabled;
    const saved = await this.dataSource.getRepository(Prompt).save(prompt);
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [prompt.gatewayId] });
    return this.presenter.toResponse(saved);
  }

  private async find(id: string): Promise<Prompt> {
    const prompt = await this.dataSource.getRepository(Prompt).findOneBy({ id });
    if (!prompt)
      throw new PromptException(PromptErrorCode.NotFound, `Prompt ${id} does not exist.`);
    return prompt;
  }
}
