import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { type RateLimitCreateDto } from './dto/rate-limit-create.dto';
import { type RateLimitResponseDto } from './dto/rate-limit-response.dto';
import { type RateLimitUpdateDto } from './dto/rate-limit-update.dto';
import { RateLimit } from './rate-limit.entity';
import { RateLimitErrorCode, RateLimitException } from './rate-limit.exception';
import { LIMITS_WITH_TOOLS } from './rate-limiter.service';

/** Rate limits, managed by admins; every replica's directories reload them on a change. */
@Injectable()
export class RateLimitsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  async list(page: PageQueryDto): Promise<Page<RateLimitResponseDto>> {
    const [rows, [counted]] = await Promise.all([
      this.dataSource.query<RateLimitRow[]>(
        `${LIMIT_ROWS} ORDER BY l.created_at, l.id LIMIT $1 OFFSET $2`,
        [page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>('SELECT count(*)::int AS total FROM rate_limit'),
    ]);
    return { items: rows.map(toResponse), total: counted?.total ?? 0 };
  }

  async get(id: string): Promise<RateLimitResponseDto> {
    const [row] = await this.dataSource.query<RateLimitRow[]>(`${LIMIT_ROWS} WHERE l.id = $1`, [
      id,
    ]);
    if (!row)
      throw new RateLimitException(RateLimitErrorCode.NotFound, `Rate limit ${id} does not exist.`);
    return toResponse(row);
  }

  async create(dto: RateLimitCreateDto): Promise<RateLimitResponseDto> {
    const repository = this.dataSource.getRepository(RateLimit);
    const target = await this.targetOf(dto.serverId ?? null, dto.toolId ?? null);
    const limit = await repository.save(
      repository.create({
        per: dto.per,
        ...target,
        points: dto.points,
        windowSeconds: dto.windowSeconds,
      }),
    );
    await this.changed(limit.serverId);
    return this.get(limit.id);
  }

  async update(id: string, dto: RateLimitUpdateDto): Promise<RateLimitResponseDto> {
    const limit = await this.find(id);
    const before = limit.serverId;
    const serverId = dto.serverId === undefined ? limit.serverId : dto.serverId;
    // Without a new toolId the limit keeps its tool, also while that tool is away.
    const target =
      dto.toolId === undefined
        ? { ...(await this.targetOf(serverId, null)), ...toolOf(limit) }
        : await this.targetOf(serverId, dto.toolId);
    Object.assign(limit, {
      per: dto.per ?? limit.per,
      ...target,
      points: dto.points ?? limit.points,
      windowSeconds: dto.windowSeconds ?? limit.windowSeconds,
    });
    const saved = await this.dataSource.getRepository(RateLimit).save(limit);
    await this.changed(before === saved.serverId ? saved.serverId : null);
    return this.get(saved.id);
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

  /** The server and the tool's lasting name (its gateway and upstream name) a limit is kept by. */
  private async targetOf(
    serverId: string | null,
    toolId: string | null,
  ): Promise<Pick<RateLimit, 'serverId' | 'gatewayId' | 'toolName'>> {
    const [row] = await this.dataSource.query<
      { servers: number; gatewayId: string | null; toolName: string | null }[]
    >(
      `SELECT (SELECT count(*)::int FROM server WHERE id = $1) AS servers,
              tool.gateway_id AS "gatewayId", tool.original_name AS "toolName"
       FROM (SELECT 1) AS one LEFT JOIN tool ON tool.id = $2`,
      [serverId, toolId],
    );
    const unknown = [
      ...(serverId !== null && row!.servers === 0 ? [`server ${serverId}`] : []),
      ...(toolId !== null && row!.gatewayId === null ? [`tool ${toolId}`] : []),
    ];
    if (unknown.length > 0)
      throw new RateLimitException(
        RateLimitErrorCode.UnknownTarget,
        `No such ${unknown.join(' or ')}.`,
      );
    return { serverId, gatewayId: row!.gatewayId, toolName: row!.toolName };
  }

  /** A server's limits change its directory only; a global one every directory. */
  private changed(serverId: string | null): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: serverId ? [serverId] : [] });
  }
}

/** Each limit with the row its tool has now: none while the upstream does not list the tool. */
const LIMIT_ROWS = `
  SELECT l.id, l.per, l.server_id AS "serverId", l.gateway_id AS "gatewayId",
         l.tool_name AS "toolName", t.id AS "toolId", l.points, l.window_seconds AS "windowSeconds",
         l.created_at AS "createdAt", l.updated_at AS "updatedAt"
  FROM ${LIMITS_WITH_TOOLS}`;

type RateLimitRow = Omit<RateLimit, 'server' | 'gateway'> & { toolId: string | null };

function toolOf(limit: RateLimit): Pick<RateLimit, 'gatewayId' | 'toolName'> {
  return { gatewayId: limit.gatewayId, toolName: limit.toolName };
}

function toResponse(limit: RateLimitRow): RateLimitResponseDto {
  return {
    id: limit.id,
    per: limit.per,
    serverId: limit.serverId,
    toolId: limit.toolId,
    gatewayId: limit.gatewayId,
    toolName: limit.toolName,
    toolAway: limit.toolName !== null && limit.toolId === null,
    points: limit.points,
    windowSeconds: limit.windowSeconds,
    createdAt: new Date(limit.createdAt).toISOString(),
    updatedAt: new Date(limit.updatedAt).toISOString(),
  };
}
