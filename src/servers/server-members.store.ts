import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { ServerErrorCode, ServerException } from './server.exception';

/** A server's members of every kind, as ids. */
export interface ServerMemberIds {
  toolIds: string[];
  resourceIds: string[];
  resourceTemplateIds: string[];
  promptIds: string[];
}

export type MemberField = keyof ServerMemberIds;

export const MEMBER_FIELDS: readonly MemberField[] = [
  'toolIds',
  'resourceIds',
  'resourceTemplateIds',
  'promptIds',
];

/** Where each kind of member lives: its join table, and the table the ids point into. */
interface MemberKind {
  join: string;
  column: string;
  target: string;
  noun: string;
  unknownCode: ServerErrorCode;
  /** The member of the 422 problem document that lists the unknown ids. */
  unknownDetail: string;
}

const KINDS: Record<MemberField, MemberKind> = {
  toolIds: {
    join: 'server_tool',
    column: 'tool_id',
    target: 'tool',
    noun: 'tool',
    unknownCode: ServerErrorCode.UnknownTools,
    unknownDetail: 'unknownToolIds',
  },
  resourceIds: {
    join: 'server_resource',
    column: 'resource_id',
    target: 'resource',
    noun: 'resource',
    unknownCode: ServerErrorCode.UnknownResources,
    unknownDetail: 'unknownResourceIds',
  },
  resourceTemplateIds: {
    join: 'server_resource_template',
    column: 'template_id',
    target: 'resource_template',
    noun: 'resource template',
    unknownCode: ServerErrorCode.UnknownResourceTemplates,
    unknownDetail: 'unknownResourceTemplateIds',
  },
  promptIds: {
    join: 'server_prompt',
    column: 'prompt_id',
    target: 'prompt',
    noun: 'prompt',
    unknownCode: ServerErrorCode.UnknownPrompts,
    unknownDetail: 'unknownPromptIds',
  },
};

export function noMembers(): ServerMemberIds {
  return { toolIds: [], resourceIds: [], resourceTemplateIds: [], promptIds: [] };
}

/**
 * Membership of virtual servers in all four join tables. Table and column names come from the
 * constant above, never from input; ids travel as one array parameter each, so a list of ten
 * thousand is one statement.
 */
@Injectable()
export class ServerMembersStore {
  /** Every member id of these servers, each list sorted. */
  async idsOf(em: EntityManager, serverIds: string[]): Promise<Map<string, ServerMemberIds>> {
    const members = new Map(serverIds.map((id) => [id, noMembers()]));
    if (serverIds.length === 0) return members;
    for (const field of MEMBER_FIELDS) {
      const { join, column } = KINDS[field];
      const rows: { serverId: string; id: string }[] = await em.query(
        `SELECT server_id AS "serverId", ${column} AS id FROM ${join}
         WHERE server_id = ANY($1::uuid[]) ORDER BY server_id, ${column}`,
        [serverIds],
      );
      for (const row of rows) members.get(row.serverId)?.[field].push(row.id);
    }
    return members;
  }

  /**
   * Replaces the server's members of one kind; unknown ids refuse the whole change (422). Members
   * of gateways the scope does not see count as unknown: they cannot be picked.
   */
  async replace(
    em: EntityManager,
    serverId: string,
    field: MemberField,
    ids: string[],
    scope: TeamScope,
  ): Promise<void> {
    const kind = KINDS[field];
    const visible = scope.everything
      ? ''
      : ' AND gateway_id IN (SELECT id FROM gateway WHERE team_id IS NULL OR team_id = ANY($2::uuid[]))';
    const found: { id: string }[] =
      ids.length === 0
        ? []
        : await em.query(
            `SELECT id FROM ${kind.target} WHERE id = ANY($1::uuid[])${visible}`,
            scope.everything ? [ids] : [ids, [...scope.teamIds]],
          );
    const known = new Set(found.map((row) => row.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new ServerException(
        kind.unknownCode,
        `Unknown ${kind.noun} ids: ${unknown.slice(0, 20).join(', ')}.`,
        { [kind.unknownDetail]: unknown },
      );
    }
    await em.query(`DELETE FROM ${kind.join} WHERE server_id = $1`, [serverId]);
    if (ids.length > 0) {
      await em.query(
        `INSERT INTO ${kind.join} (server_id, ${kind.column}) SELECT $1::uuid, unnest($2::uuid[])`,
        [serverId, ids],
      );
    }
  }
}
