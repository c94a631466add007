import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { Team } from '../teams/team.entity';

const TTL_MS = 30_000;

/**
 * Team ids by name, for the teams an identity provider's groups map to: read on every request
 * that carries an external token, so cached for a short while (teams are renamed rarely).
 */
@Injectable()
export class TeamNames {
  private cache: { ids: Map<string, string>; at: number } | null = null;

  constructor(private readonly dataSource: DataSource) {}

  async ids(names: readonly string[], now = Date.now()): Promise<string[]> {
    if (names.length === 0) return [];
    if (!this.cache || now - this.cache.at >= TTL_MS) {
      const teams = await this.dataSource
        .getRepository(Team)
        .find({ select: { id: true, name: true } });
      this.cache = { ids: new Map(teams.map((team) => [team.name, team.id])), at: now };
    }
    return [...new Set(names.flatMap((name) => this.cache!.ids.get(name) ?? []))].sort();
  }

  /** Creates the teams that are named but missing; for the configured mapping at start-up. */
  async ensure(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    const existing = await this.dataSource.getRepository(Team).findBy({ name: In([...names]) });
    const missing = names.filter((name) => !existing.some((team) => team.name === name));
    if (missing.length > 0) {
      await this.dataSource
        .createQueryBuilder()
        .insert()
        .into(Team)
        .values(
          missing.map((name) => ({ name, description: 'Mapped from identity provider groups.' })),
        )
        .orIgnore()
        .execute();
    }
    this.cache = null;
  }
}
