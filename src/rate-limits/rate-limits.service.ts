import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { type RateLimitCreateDto } from './dto/rate-limit-create.dto';
import { type RateLimitResponseDto } from './dto/rate-limit-response.dto';
import { type RateLimitUpdateDto } from './dto/rate-limit-update.dto';
import { RateLimit } from './rate-limit.entity';
import { RateLimitErrorCode, RateLimitException } from './rate-limit.exception';

/** Rate limits, managed by admins; every replica's directories reload them on a change. */
@Injectable()
export class RateLimitsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  async list(page: PageQueryDto): Promise<Page<RateLimitResponseDto>> {
    const [limits, total] = await this.dataSource.getRepository(RateLimit).findAndCount({
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
    return { items: limits.map(toResponse), total };
  }

  async get(id: string): Promise<RateLimitResponseDto> {
    return toResponse(await this.find(id));
  }

  async create(dto: RateLimitCreateDto): Promise<RateLimitResponseDto> {
    const repository = this.dataSource.getRepository(RateLimit);
    await this.assertTargets(this.dataSource.manager, dto.serverId ?? null, dto.toolId ?? null);
    const limit = await repository.save(
      repository.create({
        per: dto.per,
        serverId: dto.serverId ?? null,
        toolId: dto.toolId ?? null,
        points: dto.points,
        windowSeconds: dto.windowSeconds,
      }),
    );
    await this.changed(limit.serverId);
    return toResponse(limit);
  }

  async update(id: string, dto: RateLimitUpdateDto): Promise<RateLimitResponseDto> {
    const limit = await this.find(id);
    const before = limit.serverId;
    Object.assign(limit, {
      per: dto.per ?? limit.per,
      serverId: dto.serverId === undefined ? limit.serverId : dto.serverId,
      toolId: dto.toolId === undefined ? limit.toolId : dto.toolId,
      points: dto.points ?? limit.points,
      windowSeconds: dto.windowSeconds ?? limit.windowSeconds,
    });
    await this.assertTargets(this.dataSource.manager, limit.serverId, limit.toolId);
    const saved = await this.dataSource.getRepository(RateLimit).save(limit);
    await this.changed(before === saved.serverId ? saved.serverId : null);
    return toResponse(saved);
  }

  async remove(id: string): Promise<void> {
    const limit = await this.find(id);
    await this.dataSource.getRepository(RateLimit).delete({ id });
    await this.changed(limit.serverId);
  }

  private async find(id: string): Promise<RateLimit> {
    const limit = await this.dataSource.getRepository(RateLimit).findOneBy({ id });
    if (!limit)
      throw new RateLimitException(RateLimitErrorCode.NotFound, `Rate limit ${id} does not exist.`);
    return limit;
  }

  private async assertTargets(
    em: EntityManager,
    serverId: string | null,
    toolId: string | null,
  ): Promise<void> {
    const rows: { servers: number; tools: number }[] = await em.query(
      `SELECT (SELECT count(*)::int FROM server WHERE id = $1) AS servers,
              (SELECT count(*)::int FROM tool WHERE id = $2) AS tools`,
      [serverId, toolId],
    );
    const unknown = [
      ...(serverId !== null && rows[0]!.servers === 0 ? [`server ${serverId}`] : []),
      ...(toolId !== null && rows[0]!.tools === 0 ? [`tool ${toolId}`] : []),
    ];
    if (unknown.length > 0)
      throw new RateLimitException(
        RateLimitErrorCode.UnknownTarget,
        `No such ${unknown.join(' or ')}.`,
      );
  }

  /** A server's limits change its directory only; a global one every directory. */
  private changed(serverId: string | null): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: serverId ? [serverId] : [] });
  }
}

function toResponse(limit: RateLimit): RateLimitResponseDto {
  return {
    id: limit.id,
    per: limit.per,
    serverId: limit.serverId,
    toolId: limit.toolId,
    points: limit.points,
    windowSeconds: limit.windowSeconds,
    createdAt: limit.createdAt.toISOString(),
    updatedAt: limit.updatedAt.toISOString(),
  };
}
