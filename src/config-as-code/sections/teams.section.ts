import { z } from 'zod';
import { TeamMember } from '../../teams/team-member.entity';
import { Team } from '../../teams/team.entity';
import { scalarChanges } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import { defineSection, markServerChanged } from './config-section';

const teamItem = z
  .object({
    name: z.string().min(1).max(200).describe('Unique team name; other sections refer to it.'),
    description: z.string().max(4000).default('').describe('What the team is for.'),
  })
  .strict();

/** Teams by name. Membership comes from users and single sign-on, not from the document. */
export const teamsSection = defineSection({
  key: 'teams',
  description: 'Teams that own gateways and servers, by name.',
  item: teamItem,

  async export({ em }) {
    const teams = await em.getRepository(Team).find({ order: { name: 'ASC' } });
    return teams.map((team) => ({
      name: team.name,
      ...(team.description ? { description: team.description } : {}),
    }));
  },

  async upsert(items, ctx) {
    const repository = ctx.em.getRepository(Team);
    const existing = new Map((await repository.find()).map((team) => [team.name, team]));
    for (const item of items) {
      const team = existing.get(item.name) ?? null;
      const fields = scalarChanges(team && { description: team.description }, {
        description: item.description,
      });
      if (team === null) {
        const created = await repository.save(repository.create(item));
        ctx.teamIds.set(created.name, created.id);
        // Policies read team names (`principal.teams`), which the directories hold.
        markServerChanged(ctx, null);
        ctx.changes.push({ action: 'create', kind: 'team', name: item.name, fields });
      } else if (fields.length > 0) {
        await repository.update({ id: team.id }, { description: item.description });
        ctx.changes.push({ action: 'update', kind: 'team', name: item.name, fields });
      }
    }
  },

  async prune(items, ctx) {
    const named = new Set(items.map((item) => item.name));
    const teams = await ctx.em.getRepository(Team).find({ order: { name: 'ASC' } });
    for (const team of teams.filter((team) => !named.has(team.name))) {
      const owners: { kind: string; name: string }[] = await ctx.em.query(
        `SELECT 'gateway' AS kind, name FROM gateway WHERE team_id = $1
         UNION ALL SELECT 'server', name FROM server WHERE team_id = $1 LIMIT 5`,
        [team.id],
      );
      if (owners.length > 0) {
        const names = owners.map((owner) => `${owner.kind} '${owner.name}'`).join(', ');
        throw new ConfigDocumentException(
          ConfigDocumentErrorCode.Conflict,
          `Pruning team '${team.name}' is refused: it still owns ${names}, which the document keeps.`,
        );
      }
      const members = await ctx.em.getRepository(TeamMember).findBy({ teamId: team.id });
      for (const member of members) ctx.changed.userIds.add(member.userId);
      await ctx.em.getRepository(Team).delete({ id: team.id });
      ctx.teamIds.delete(team.name);
      ctx.changes.push({ action: 'delete', kind: 'team', name: team.name, fields: [] });
    }
  },
});
