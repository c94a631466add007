import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, type EntityManager, In } from 'typeorm';
import { hashPassword } from '../auth/password-hash';
import { type Role } from '../common/roles';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { uniqueViolation } from '../common/unique-violation';
import { AuthSettings } from '../config/slices/auth.settings';
import { EventBus } from '../events/event-bus';
import { TeamMember } from '../teams/team-member.entity';
import { Team } from '../teams/team.entity';
import { type UserCreateDto, type UserUpdateDto } from './dto/user-create.dto';
import { type UserResponseDto } from './dto/user-response.dto';
import { User } from './user.entity';
import { UserErrorCode, UserException } from './user.exception';

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly authSettings: AuthSettings,
    private readonly bus: EventBus,
  ) {}

  async list(page: PageQueryDto): Promise<Page<UserResponseDto>> {
    const [users, total] = await this.dataSource
      .getRepository(User)
      .findAndCount({ order: { username: 'ASC' }, skip: page.offset, take: page.limit });
    const teams = await this.teamIds(users.map((user) => user.id));
    return {
      items: users.map((user) => this.toResponse(user, teams.get(user.id) ?? [])),
      total,
    };
  }

  async get(id: string): Promise<UserResponseDto> {
    const user = await this.find(id);
    return this.toResponse(user, (await this.teamIds([id])).get(id) ?? []);
  }

  async create(dto: UserCreateDto): Promise<UserResponseDto> {
    const passwordHash = await hashPassword(dto.password, this.authSettings.passwordHashing);
    const id = await this.writing(async (em) => {
      if (await em.getRepository(User).existsBy({ username: dto.username }))
        throw taken(dto.username);
      const user = await em.getRepository(User).save(
        em.getRepository(User).create({
          username: dto.username,
          displayName: dto.displayName ?? '',
          passwordHash,
          role: dto.role,
          source: 'local',
        }),
      );
      await this.replaceTeams(em, user.id, dto.teamIds ?? []);
      return user.id;
    });
    return this.get(id);
  }

  async update(id: string, dto: UserUpdateDto): Promise<UserResponseDto> {
    const passwordHash =
      dto.password === undefined
        ? undefined
        : await hashPassword(dto.password, this.authSettings.passwordHashing);
    await this.writing(async (em) => {
      const user = await this.find(id, em);
      if (this.isBreakGlass(user)) {
        const refused = (dto.role !== undefined && dto.role !== 'admin') || dto.disabled === true;
        const configured = passwordHash !== undefined && this.authSettings.adminPassword !== null;
        if (refused || configured) throw breakGlass(user.username);
      }
      if (passwordHash !== undefined && user.source !== 'local') {
        throw new UserException(
          UserErrorCode.NotLocal,
          `'${user.username}' signs in through the identity provider and has no password here.`,
        );
      }
      Object.assign(user, {
        displayName: dto.displayName ?? user.displayName,
        role: dto.role ?? user.role,
        disabled: dto.disabled ?? user.disabled,
        passwordHash: passwordHash ?? user.passwordHash,
      });
      await em.getRepository(User).save(user);
      if (dto.teamIds !== undefined) await this.replaceTeams(em, id, dto.teamIds);
    });
    await this.changed(id);
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    const user = await this.find(id);
    if (this.isBreakGlass(user)) throw breakGlass(user.username);
    await this.dataSource.getRepository(User).delete({ id });
    await this.changed(id);
  }

  /**
   * The local account of a person who signed in through the identity provider: made at their
   * first sign-in, and given the role and teams their groups map to at every sign-in (the
   * provider is the source of truth for those). A username another account has already gets the
   * provider's host appended. Returns null when the account was disabled here.
   */
  async signInFromProvider(person: {
    issuer: string;
    subject: string;
    username: string;
    displayName: string;
    role: Role;
    teamIds: string[];
  }): Promise<string | null> {
    const id = await this.dataSource.transaction(async (em) => {
      const repository = em.getRepository(User);
      const existing = await repository.findOneBy({
        externalIssuer: person.issuer,
        externalSubject: person.subject,
      });
      if (existing?.disabled) return null;
      let user = existing;
      if (!user) {
        const username = await this.freeUsername(em, person.username.slice(0, 128), person);
        user = repository.create({
          username,
          source: 'oidc',
          externalIssuer: person.issuer,
          externalSubject: person.subject,
          passwordHash: null,
        });
      }
      // What the provider says is an edit, which moves updatedAt only when it changes something;
      // the sign-in itself is not.
      Object.assign(user, { displayName: person.displayName, role: person.role });
      const saved = await repository.save(user);
      await repository.update(saved.id, { lastLoginAt: new Date(), ...KEEP_UPDATED_AT });
      await this.replaceTeams(em, saved.id, person.teamIds);
      return saved.id;
    });
    if (id !== null) await this.changed(id);
    return id;
  }

  private async freeUsername(
    em: EntityManager,
    wanted: string,
    person: { issuer: string; subject: string },
  ): Promise<string> {
    const host = new URL(person.issuer).host;
    const candidates = [
      wanted,
      `${wanted}@${host}`,
      `${wanted}@${host}#${createHash('sha256').update(person.subject).digest('hex').slice(0, 8)}`,
    ].map((name) => name.slice(0, 128));
    for (const name of candidates)
      if (!(await em.getRepository(User).existsBy({ username: name }))) return name;
    throw taken(wanted);
  }

  async find(id: string, em: EntityManager = this.dataSource.manager): Promise<User> {
    const user = await em.getRepository(User).findOneBy({ id });
    if (!user) throw new UserException(UserErrorCode.NotFound, `User ${id} does not exist.`);
    return user;
  }

  /** Tells every replica's caches that what the user may do changed. */
  changed(...userIds: string[]): Promise<void> {
    return this.bus.publish({ type: 'identity.changed', userIds, tokenIds: [], grantIds: [] });
  }

  /** Replaces a user's team memberships; unknown teams are refused, naming them. */
  async replaceTeams(em: EntityManager, userId: string, teamIds: readonly string[]): Promise<void> {
    const known = await em.getRepository(Team).findBy({ id: In([...teamIds]) });
    const unknown = teamIds.filter((id) => !known.some((team) => team.id === id));
    if (unknown.length > 0) {
      throw new UserException(
        UserErrorCode.UnknownTeams,
        `Unknown team ids: ${unknown.join(', ')}.`,
        {
          unknownTeamIds: unknown,
        },
      );
    }
    await em.delete(TeamMember, { userId });
    if (teamIds.length > 0)
      await em.insert(
        TeamMember,
        teamIds.map((teamId) => ({ teamId, userId })),
      );
  }

  private isBreakGlass(user: User): boolean {
    return user.username === this.authSettings.adminUsername;
  }

  private async teamIds(userIds: string[]): Promise<Map<string, string[]>> {
    const teams = new Map<string, string[]>();
    if (userIds.length === 0) return teams;
    const rows = await this.dataSource
      .getRepository(TeamMember)
      .find({ where: { userId: In(userIds) }, order: { teamId: 'ASC' } });
    for (const row of rows) teams.set(row.userId, [...(teams.get(row.userId) ?? []), row.teamId]);
    return teams;
  }

  toResponse(user: User, teamIds: string[]): UserResponseDto {
    return {
      id: user.id,
      username: user.username,
      displayName: user.displayName,
      role: user.role,
      teamIds,
      source: user.source,
      breakGlass: this.isBreakGlass(user),
      disabled: user.disabled,
      lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    };
  }

  private async writing<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      if (uniqueViolation(error) === 'app_user_username_uq') throw taken('that name');
      throw error;
    }
  }
}

function taken(username: string): UserException {
  return new UserException(
    UserErrorCode.UsernameTaken,
    `A user named '${username}' exists already.`,
  );
}

function breakGlass(username: string): UserException {
  return new UserException(
    UserErrorCode.BreakGlass,
    `'${username}' is the break-glass admin (ADMIN_USERNAME): it stays an enabled admin, and ADMIN_PASSWORD, when set, is its password.`,
  );
}
