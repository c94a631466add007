import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { containsPattern } from '../common/like-pattern';
import { type Page } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { type ResourceListQueryDto } from './dto/resource-list-query.dto';
import {
  type ResourceResponseDto,
  type ResourceTemplateResponseDto,
} from './dto/resource-response.dto';
import { type ResourceUpdateDto } from './dto/resource-update.dto';
import { resourceResponse, resourceTemplateResponse } from './resource.presenter';
import { virtualUriExpression } from './resource-uri';
import { ResourceTemplate } from './resource-template.entity';
import { Resource } from './resource.entity';
import { ResourceErrorCode, ResourceException } from './resource.exception';

type Entry = Resource | ResourceTemplate;

/** One kind of entry: its entity, URI column, presenter and missing-record error. */
interface Kind<T extends Entry, R> {
  entity: new () => T;
  /** What a 403 calls an entry of this kind. */
  noun: string;
  uriColumn: 'uri' | 'uri_template';
  present: (entry: T) => R;
  notFound: (id: string) => ResourceException;
}

const RESOURCES: Kind<Resource, ResourceResponseDto> = {
  entity: Resource,
  noun: 'resource',
  uriColumn: 'uri',
  present: resourceResponse,
  notFound: (id) =>
    new ResourceException(ResourceErrorCode.NotFound, `Resource ${id} does not exist.`),
};

const TEMPLATES: Kind<ResourceTemplate, ResourceTemplateResponseDto> = {
  entity: ResourceTemplate,
  noun: 'resource template',
  uriColumn: 'uri_template',
  present: resourceTemplateResponse,
  notFound: (id) =>
    new ResourceException(
      ResourceErrorCode.TemplateNotFound,
      `Resource template ${id} does not exist.`,
    ),
};

/**
 * The registry's resources and resource templates, as the REST API and admin pages read them. A
 * scope sees the entries of the gateways it sees, and changes those of the gateways it manages,
 * as with tools.
 */
@Injectable()
export class ResourcesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  list(query: ResourceListQueryDto, scope: TeamScope): Promise<Page<ResourceResponseDto>> {
    return this.listOf(RESOURCES, query, scope);
  }

  get(id: string, scope: TeamScope): Promise<ResourceResponseDto> {
    return this.getOf(RESOURCES, id, scope);
  }

  getMany(ids: string[]): Promise<ResourceResponseDto[]> {
    return this.getManyOf(RESOURCES, ids);
  }

  update(id: string, dto: ResourceUpdateDto, scope: TeamScope): Promise<ResourceResponseDto> {
    return this.updateOf(RESOURCES, id, dto, scope);
  }

  listTemplates(
    query: ResourceListQueryDto,
    scope: TeamScope,
  ): Promise<Page<ResourceTemplateResponseDto>> {
    return this.listOf(TEMPLATES, query, scope);
  }

  getTemplate(id: string, scope: TeamScope): Promise<ResourceTemplateResponseDto> {
    return this.getOf(TEMPLATES, id, scope);
  }

  getManyTemplates(ids: string[]): Promise<ResourceTemplateResponseDto[]> {
    return this.getManyOf(TEMPLATES, ids);
  }

  updateTemplate(
    id: string,
    dto: ResourceUpdateDto,
    scope: TeamScope,
  ): Promise<ResourceTemplateResponseDto> {
    return this.updateOf(TEMPLATES, id, dto, scope);
  }

  private async listOf<T extends Entry, R>(
    kind: Kind<T, R>,
    query: ResourceListQueryDto,
    scope: TeamScope,
  ): Promise<Page<R>> {
    const qb = scope.visibleThrough(
      this.dataSource.getRepository(kind.entity).createQueryBuilder('entry'),
      'entry.gateway_id',
      'gateway',
    );
    if (query.gatewayId)
      qb.andWhere('entry.gateway_id = :gatewayId', { gatewayId: query.gatewayId });
    if (query.q) {
      qb.andWhere(
        `(${virtualUriExpression('entry', kind.uriColumn)} ILIKE :pattern OR entry.name ILIKE :pattern OR entry.description ILIKE :pattern)`,
        { pattern: containsPattern(query.q) },
      );
    }
    const [entries, total] = await ordered(qb, kind)
      .skip(query.offset)
      .take(query.limit)
      .getManyAndCount();
    return { items: entries.map((entry) => kind.present(entry)), total };
  }

  private async getOf<T extends Entry, R>(
    kind: Kind<T, R>,
    id: string,
    scope: TeamScope,
  ): Promise<R> {
    return kind.present(await this.find(kind, id, scope));
  }

  /**
   * These entries in list order; for a server's member list. Unknown and malformed ids are
   * skipped: callers pass ids straight from forms.
   */
  private async getManyOf<T extends Entry, R>(kind: Kind<T, R>, ids: string[]): Promise<R[]> {
    const wellFormed = ids.filter((id) => isUUID(id));
    if (wellFormed.length === 0) return [];
    const qb = this.dataSource
      .getRepository(kind.entity)
      .createQueryBuilder('entry')
      .where('entry.id = ANY(:ids)', { ids: wellFormed });
    return (await ordered(qb, kind).getMany()).map((entry) => kind.present(entry));
  }

  private async updateOf<T extends Entry, R>(
    kind: Kind<T, R>,
    id: string,
    dto: ResourceUpdateDto,
    scope: TeamScope,
  ): Promise<R> {
    const entry = await this.find(kind, id, scope);
    scope.assertManage(entry.gateway!.teamId, `The gateway of this ${kind.noun}`);
    entry.enabled = dto.enabled;
    const saved = await this.dataSource.getRepository(kind.entity).save(entry);
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [entry.gatewayId] });
    return kind.present(saved);
  }

  /** The entry with its gateway, if this scope sees the gateway; 404 otherwise. */
  private async find<T extends Entry, R>(
    kind: Kind<T, R>,
    id: string,
    scope: TeamScope,
  ): Promise<T> {
    const entry = await this.dataSource
      .getRepository<Entry>(kind.entity)
      .findOne({ where: { id }, relations: { gateway: true } });
    if (!entry?.gateway || !scope.canSee(entry.gateway.teamId)) throw kind.notFound(id);
    return entry as T;
  }
}

/** By prefixed URI, as clients of `/mcp` see them. */
function ordered<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  kind: { uriColumn: 'uri' | 'uri_template' },
): SelectQueryBuilder<T> {
  return qb.orderBy(virtualUriExpression('entry', kind.uriColumn), 'ASC').addOrderBy('entry.id');
}
