import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { uniqueViolation } from '../common/unique-violation';
import { EventBus } from '../events/event-bus';
import { type TeamCreateDto, type TeamResponseDto, type TeamUpdateDto } from './dto/team.dto';
import { TeamMember } from './team-member.entity';
import { Team } from './team.entity';
import { TeamErrorCode, TeamException } from './team.exception';

@Injectable()
export class TeamsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  /** The teams this scope belongs to (every team, for admins). */
  async list(page: PageQueryDto, scope: TeamScope): Promise<Page<TeamResponseDto>> {
    const qb = this.dataSource
      .getRepository(Team)
      .createQueryBuilder('team')
      .orderBy('team.name', 'ASC')
      .skip(page.offset)
      .take(page.limit);
    if (!scope.everything) qb.where('team.id = ANY(:teamIds)', { teamIds: [...scope.teamIds] });
    const [teams, total] = await qb.getManyAndCount();
    const counts = await this.memberCounts(teams.map((team) => team.id));
    return { items: teams.map((team) => toResponse(team, counts.get(team.id) ?? 0)), total };
  }

  async get(id: string, scope: TeamScope): Promise<TeamResponseDto> {
    const team = await this.find(id);
    if (!scope.everything && !scope.teamIds.includes(id)) throw notFound(id);
    return toResponse(team, (await this.memberCounts([id])).get(id) ?? 0);
  }

  async create(dto: TeamCreateDto): Promise<TeamResponseDto> {
    const team = await this.writing((em) =>
      em
        .getRepository(Team)
        .save(
          em.getRepository(Team).create({ name: dto.name, description: dto.description ?? '' }),
        ),
    );
    await this.namesChanged();
    return toResponse(team, 0);
  }

  async update(id: string, dto: TeamUpdateDto): Promise<TeamResponseDto> {
    let renamed = false;
    const team = await this.writing(async (em) => {
      const team = await this.find(id, em);
      renamed = dto.name !== undefined && dto.name !== team.name;
      team.name = dto.name ?? team.name;
      team.description = dto.description ?? team.description;
      return em.getRepository(Team).save(team);
    });
    if (renamed) await this.namesChanged();
    return toResponse(team, (await this.memberCounts([id])).get(id) ?? 0);
  }

  /** Policies read team names (`principal.teams`), which every directory holds. */
  private namesChanged(): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: [] });
  }

  /** Refused while the team owns gateways or servers; its members just leave it. */
  async remove(id: string): Promise<void> {
    await this.find(id);
    const members = await this.dataSource.getRepository(TeamMember).findBy({ teamId: id });
    try {
      await this.dataSource.getRepository(Team).delete({ id });
    } catch (error) {
      const driverError = (error as { driverError?: { code?: string } }).driverError;
      if (driverError?.code === '23503') {
        throw new TeamException(
          TeamErrorCode.InUse,
          'The team still owns gateways or servers; move them to another team or delete them first.',
        );
      }
      throw error;
    }
    await this.bus.publish({
      type: 'identity.changed',
      userIds: members.map((member) => member.userId),
      tokenIds: [],
      grantIds: [],
    });
  }

  async find(id: string, em: EntityManager = this.dataSource.manager): Promise<Team> {
    const team = await em.getRepository(Team).findOneBy({ id });
    if (!team) throw notFound(id);
    return team;
  }

  /** The team's id if it exists, for a gateway or server being given to it; throws 422 if not. */
  async assertExists(id: string, em: EntityManager = this.dataSource.manager): Promise<void> {
    if (!(await em.getRepository(Team).existsBy({ id })))
      throw new TeamException(TeamErrorCode.Unknown, `Team ${id} does not exist.`);
  }

  /** Team names by id, for pages. */
  async names(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const teams = await this.dataSource.getRepository(Team).findBy({ id: In(ids) });
    return new Map(teams.map((team) => [team.id, team.name]));
  }

  private async memberCounts(teamIds: string[]): Promise<Map<string, number>> {
    if (teamIds.length === 0) return new Map();
    const rows: { teamId: string; count: number }[] = await this.dataSource
      .getRepository(TeamMember)
      .createQueryBuilder('member')
      .select('member.team_id', 'teamId')
      .addSelect('COUNT(*)::int', 'count')
      .where('member.team_id = ANY(:teamIds)', { teamIds })
      .groupBy('member.team_id')
      .getRawMany();
    return new Map(rows.map((row) => [row.teamId, row.count]));
  }

  private async writing<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      if (uniqueViolation(error) === 'team_name_uq') {
        throw new TeamException(TeamErrorCode.NameTaken, 'A team with that name exists already.');
      }
      throw error;
    }
  }
}

function notFound(id: string): TeamException {
  return new TeamException(TeamErrorCode.NotFound, `Team ${id} does not exist.`);
}

function toResponse(team: Team, memberCount: number): TeamResponseDto {
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    memberCount,
    createdAt: team.createdAt.toISOString(),
    updatedAt: team.updatedAt.toISOString(),
  };
}
