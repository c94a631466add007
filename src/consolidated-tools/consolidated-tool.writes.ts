import { type EntityManager, In } from 'typeorm';
import { Server } from '../servers/server.entity';
import { Tool } from '../tools/tool.entity';
import { type ToolNameQuery } from '../virtual-names/tool-name.query';
import { ConsolidatedMember } from './consolidated-member.entity';
import { ConsolidatedTool } from './consolidated-tool.entity';
import {
  ConsolidatedToolErrorCode as Code,
  ConsolidatedToolException,
} from './consolidated-tool.exception';
import { schemaDifference } from './schema-difference';
import { ServerConsolidatedTool } from './server-consolidated-tool.entity';

/** A member as written: its label and its gateway tool. */
export interface MemberInput {
  target: string;
  toolId: string;
}

/** A consolidated name must not be a tool's virtual name: clients would see both. */
export async function checkName(
  em: EntityManager,
  names: ToolNameQuery,
  name: string,
  self: string | null,
): Promise<void> {
  const qb = em.getRepository(Tool).createQueryBuilder('tool').select('tool.id');
  if (await names.whereNameIs(qb, name).getExists())
    throw new ConsolidatedToolException(
      Code.NameTaken,
      `'${name}' is the virtual name of a gateway tool.`,
      { name },
    );
  const other = await em.getRepository(ConsolidatedTool).findOneBy({ name });
  if (other && other.id !== self)
    throw new ConsolidatedToolException(
      Code.NameTaken,
      `Another consolidated tool is named '${name}'.`,
      { name },
    );
}

/** The members' tools, in the order given, once their schemas are known to match. */
export async function checkedMembers(
  em: EntityManager,
  members: readonly MemberInput[],
): Promise<{ tools: Tool[] }> {
  const targets = new Set(members.map((member) => member.target));
  const toolIds = new Set(members.map((member) => member.toolId));
  if (targets.size !== members.length || toolIds.size !== members.length)
    throw new ConsolidatedToolException(
      Code.DuplicateMembers,
      'Each target needs its own label and its own tool.',
    );
  const found = await em.getRepository(Tool).findBy({ id: In([...toolIds]) });
  const byId = new Map(found.map((tool) => [tool.id, tool]));
  const missing = [...toolIds].filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw new ConsolidatedToolException(Code.UnknownTools, 'Some member tools do not exist.', {
      toolIds: missing,
    });
  const tools = members.map((member) => byId.get(member.toolId)!);
  const first = tools[0]!;
  const properties = first.inputSchema.properties;
  if (typeof properties === 'object' && properties !== null && 'target' in properties)
    throw new ConsolidatedToolException(
      Code.SchemaMismatch,
      "The members already take an argument named 'target', which a consolidated tool adds to pick the member.",
      { difference: 'properties.target' },
    );
  for (const [index, tool] of tools.entries()) {
    const difference = schemaDifference(first.inputSchema, tool.inputSchema);
    if (difference)
      throw new ConsolidatedToolException(
        Code.SchemaMismatch,
        `The input schema of target '${members[index]!.target}' differs from that of '${members[0]!.target}': ${difference}.`,
        { target: members[index]!.target, difference },
      );
  }
  return { tools };
}

export async function replaceMembers(
  em: EntityManager,
  id: string,
  members: readonly MemberInput[],
): Promise<void> {
  await em.getRepository(ConsolidatedMember).delete({ consolidatedToolId: id });
  await em
    .getRepository(ConsolidatedMember)
    .insert(members.map(({ target, toolId }) => ({ consolidatedToolId: id, target, toolId })));
}

export async function replaceServers(
  em: EntityManager,
  id: string,
  serverIds: string[],
): Promise<void> {
  const unique = [...new Set(serverIds)];
  if (unique.length > 0) {
    const found = await em.getRepository(Server).findBy({ id: In(unique) });
    const missing = unique.filter((serverId) => !found.some((server) => server.id === serverId));
    if (missing.length > 0)
      throw new ConsolidatedToolException(Code.UnknownServers, 'Some servers do not exist.', {
        serverIds: missing,
      });
  }
  await em.getRepository(ServerConsolidatedTool).delete({ consolidatedToolId: id });
  if (unique.length > 0)
    await em
      .getRepository(ServerConsolidatedTool)
      .insert(unique.map((serverId) => ({ serverId, consolidatedToolId: id })));
}
