import { type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { RequestValidationException } from '../common/request-validation.exception';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type Principal } from './principal';

/**
 * What records of team-owned things (gateways, servers) a principal sees and manages. Admins see
 * and manage everything; others see their teams' records and the global ones (no team), and
 * manage only their teams' records.
 */
export class TeamScope {
  private constructor(
    readonly everything: boolean,
    readonly teamIds: readonly string[],
  ) {}

  static readonly ALL = new TeamScope(true, []);

  static of(principal: Principal): TeamScope {
    return principal.role === 'admin' ? TeamScope.ALL : new TeamScope(false, principal.teamIds);
  }

  static teams(teamIds: readonly string[]): TeamScope {
    return new TeamScope(false, teamIds);
  }

  canSee(teamId: string | null): boolean {
    return this.everything || teamId === null || this.teamIds.includes(teamId);
  }

  canManage(teamId: string | null): boolean {
    return this.everything || (teamId !== null && this.teamIds.includes(teamId));
  }

  /** Throws 403 unless this scope may change a record of `teamId`. */
  assertManage(teamId: string | null, what: string): void {
    if (this.canManage(teamId)) return;
    throw new AuthException(
      AuthErrorCode.Forbidden,
      teamId === null
        ? `${what} is global; only admins may change it.`
        : `${what} belongs to a team you are not in.`,
    );
  }

  /**
   * The team a new record goes to: the one asked for (which this scope must manage), or by default
   * none (global) for admins and the only team of someone in exactly one.
   */
  teamForNew(requested: string | null | undefined, what: string): string | null {
    let teamId = requested;
    if (teamId === undefined) {
      if (this.everything) teamId = null;
      else if (this.teamIds.length === 1) teamId = this.teamIds[0]!;
      else {
        throw new RequestValidationException([
          {
            property: 'teamId',
            constraints: { required: 'teamId must name one of your teams' },
            children: [],
          },
        ]);
      }
    }
    this.assertManage(teamId, what);
    return teamId;
  }

  /**
   * Narrows a query to the rows whose `foreignKey` points at a row of `table` (gateway, server)
   * this scope sees. A subquery rather than a join, so that paging with skip/take stays simple.
   */
  visibleThrough<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    foreignKey: string,
    table: 'gateway' | 'server',
  ): SelectQueryBuilder<T> {
    if (this.everything) return qb;
    return qb.andWhere(
      `${foreignKey} IN (SELECT owner.id FROM "${table}" owner WHERE owner.team_id IS NULL OR owner.team_id = ANY(:scopeTeamIds))`,
      { scopeTeamIds: [...this.teamIds] },
    );
  }

  /** Narrows a query to the rows whose `column` (a team_id) this scope sees. */
  visible<T extends ObjectLiteral>(
    qb: SelectQueryBuilder<T>,
    column: string,
  ): SelectQueryBuilder<T> {
    if (this.everything) return qb;
    return qb.andWhere(`(${column} IS NULL OR ${column} = ANY(:scopeTeamIds))`, {
      scopeTeamIds: [...this.teamIds],
    });
  }
}
