import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { actor, AuditTrail } from '../audit/audit-trail.service';
import { ApiTokenVerifier } from '../auth/api-token-verifier';
import { newTokenValue } from '../auth/api-token-value';
import { McpAccess } from '../auth/mcp-access';
import { type Principal } from '../auth/principal';
import { roleAtLeast } from '../common/roles';
import { AuthSettings } from '../config/slices/auth.settings';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { Server } from '../servers/server.entity';
import { User } from '../users/user.entity';
import { ApiToken } from './api-token.entity';
import {
  DEFAULT_TOKEN_DAYS,
  type TokenCreateDto,
  type TokenCreatedDto,
  type TokenResponseDto,
} from './dto/token.dto';
import { TokenErrorCode, TokenException } from './token.exception';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Managed API tokens: listed, created (the value shown once) and revoked. Everyone manages their
 * own; admins see and revoke everyone's. A token never grants more than its creator has.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly verifier: ApiTokenVerifier,
    private readonly mcp: McpAccess,
    private readonly bus: EventBus,
    private readonly audit: AuditTrail,
    private readonly settings: AuthSettings,
  ) {}

  async list(principal: Principal, page: PageQueryDto): Promise<Page<TokenResponseDto>> {
    const qb = this.dataSource
      .getRepository(ApiToken)
      .createQueryBuilder('token')
      .innerJoinAndSelect('token.owner', 'owner')
      .orderBy('token.createdAt', 'DESC')
      .addOrderBy('token.id', 'ASC')
      .skip(page.offset)
      .take(page.limit);
    if (principal.role !== 'admin')
      qb.where('token.owner_id = :ownerId', { ownerId: ownerOf(principal) });
    const [tokens, total] = await qb.getManyAndCount();
    return { items: tokens.map((token) => toResponse(token, token.owner!)), total };
  }

  /** `lifetimeMs`, when given, replaces `expiresInDays` (for the per-server token route). */
  async create(
    principal: Principal,
    dto: TokenCreateDto,
    lifetimeMs = (dto.expiresInDays ?? DEFAULT_TOKEN_DAYS) * DAY_MS,
  ): Promise<TokenCreatedDto> {
    const ownerId = ownerOf(principal);
    if ((dto.role === undefined) === (dto.serverIds === undefined)) {
      throw new TokenException(
        TokenErrorCode.ScopeRequired,
        'Give the token either a role or serverIds, not both.',
      );
    }
    if (dto.role !== undefined && !roleAtLeast(principal.role, dto.role)) {
      throw new TokenException(
        TokenErrorCode.BeyondOwner,
        `A token cannot have the ${dto.role} role: you have ${principal.role}.`,
      );
    }
    if (dto.serverIds !== undefined) await this.assertUsable(principal, dto.serverIds);
    const { value, hash, prefix } = newTokenValue();
    const { token, owner } = await this.dataSource.transaction(async (em) => {
      const owner = await this.claimPlace(em, ownerId);
      const repository = em.getRepository(ApiToken);
      const token = await repository.save(
        repository.create({
          name: dto.name,
          prefix,
          tokenHash: hash,
          ownerId,
          role: dto.role ?? null,
          serverIds: dto.serverIds ?? null,
          expiresAt: new Date(Date.now() + lifetimeMs),
          lastUsedAt: null,
        }),
      );
      return { token, owner };
    });
    this.audit.record({
      kind: 'token',
      action: 'token.create',
      outcome: 'ok',
      ...actor(principal),
      target: token.id,
      detail:
        `${token.name} (${token.role ?? 'servers'}, expires ${token.expiresAt?.toISOString() ?? 'never'})`.slice(
          0,
          500,
        ),
    });
    return { ...toResponse(token, owner), token: value };
  }

  /** Deletes the token; every replica refuses it from the moment the bus delivers the news. */
  async revoke(principal: Principal, id: string): Promise<void> {
    const repository = this.dataSource.getRepository(ApiToken);
    const token = await repository.findOneBy({ id });
    if (!token || (principal.role !== 'admin' && token.ownerId !== principal.userId))
      throw new TokenException(TokenErrorCode.NotFound, `Token ${id} does not exist.`);
    await repository.delete({ id });
    this.audit.record({
      kind: 'token',
      action: 'token.revoke',
      outcome: 'ok',
      ...actor(principal),
      target: id,
      detail: token.name.slice(0, 500),
    });
    this.verifier.revoked([id]);
    await this.bus.publish({ type: 'identity.changed', userIds: [], tokenIds: [id], grantIds: [] });
  }

  /**
   * Refuses a token past the owner's cap of active ones (each is a row, a cached lookup, and a
   * principal key of its own in the policies' views). The owner's row stays locked until the
   * token is saved, so that mints racing for the last place take turns, each counting what the
   * one before it saved.
   */
  private async claimPlace(em: EntityManager, ownerId: string): Promise<User> {
    const owner = await em
      .getRepository(User)
      .findOneOrFail({ where: { id: ownerId }, lock: { mode: 'pessimistic_write' } });
    const limit = this.settings.maxApiTokensPerUser;
    const active = await em
      .getRepository(ApiToken)
      .createQueryBuilder('token')
      .where('token.owner_id = :ownerId', { ownerId })
      .andWhere('(token.expires_at IS NULL OR token.expires_at > now())')
      .getCount();
    if (active >= limit)
      throw new TokenException(
        TokenErrorCode.LimitReached,
        `You have ${active} active API tokens, the most one user may have; revoke one you no longer use to make room for another.`,
        { active, limit },
      );
    return owner;
  }

  /** Every server must exist and be one whose MCP endpoint the creator may use. */
  private async assertUsable(principal: Principal, serverIds: string[]): Promise<void> {
    const existing = new Set(
      (
        await this.dataSource
          .getRepository(Server)
          .createQueryBuilder('server')
          .select('server.id', 'id')
          .where('server.id = ANY(:serverIds)', { serverIds })
          .getRawMany<{ id: string }>()
      ).map((row) => row.id),
    );
    const refused: string[] = [];
    for (const serverId of serverIds) {
      const decision = await this.mcp.check(
        { ...principal, serverIds: null, audience: null },
        {
          kind: 'server',
          serverId,
        },
      );
      if (!existing.has(serverId) || !decision.allowed) refused.push(serverId);
    }
    if (refused.length > 0) {
      throw new TokenException(
        TokenErrorCode.BeyondOwner,
        `No such servers, or ones you may not use: ${refused.join(', ')}.`,
        { serverIds: refused },
      );
    }
  }
}

/** Tokens are made by people (or their tokens): a principal without a user cannot own one. */
function ownerOf(principal: Principal): string {
  if (principal.userId === null) {
    throw new TokenException(
      TokenErrorCode.BeyondOwner,
      'Only a user, or a token of a user, can manage API tokens.',
    );
  }
  return principal.userId;
}

function toResponse(token: ApiToken, owner: User): TokenResponseDto {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    role: token.role,
    serverIds: token.serverIds,
    ownerId: owner.id,
    ownerName: owner.username,
    expiresAt: token.expiresAt?.toISOString() ?? null,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    createdAt: token.createdAt.toISOString(),
  };
}
