import { z } from 'zod';
import { EXPRESSION_MAX_LENGTH } from '../../policies/cel-expression';
import { LONGEST_REMEMBER_SECONDS, PRIORITY_RANGE } from '../../policies/dto/policy-create.dto';
import { checkExpression } from '../../policies/policies.service';
import { POLICY_EFFECTS, Policy } from '../../policies/policy.entity';
import { PolicyException } from '../../policies/policy.exception';
import { type FieldChange, scalarChanges } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import { type ApplyContext, defineSection, markServerChanged, serverIdOf } from './config-section';

export const policyItem = z
  .object({
    name: z.string().min(1).max(200).describe('Unique policy name; ties of priority go by it.'),
    description: z.string().max(2000).default('').describe('What the policy is for.'),
    expression: z
      .string()
      .min(1)
      .max(EXPRESSION_MAX_LENGTH)
      .describe(
        'A CEL expression giving a bool, over `principal`, `tool`, `args` and `now` (see the REST API).',
      ),
    effect: z
      .enum(POLICY_EFFECTS)
      .describe('What the first true policy decides: `allow`, `deny` or `approve`.'),
    priority: z
      .number()
      .int()
      .min(-PRIORITY_RANGE)
      .max(PRIORITY_RANGE)
      .default(0)
      .describe('Tried lowest first.'),
    server: z
      .string()
      .nullable()
      .default(null)
      .describe('Name of the virtual server it holds on; null or absent: everywhere.'),
    enabled: z.boolean().default(true).describe('A disabled policy is kept but not tried.'),
    approval: z
      .object({
        message: z.string().max(1000).nullable().default(null),
        rememberSeconds: z.number().int().min(0).max(LONGEST_REMEMBER_SECONDS).default(0),
      })
      .strict()
      .nullable()
      .default(null)
      .describe('How an `approve` policy asks; only for `approve`.'),
  })
  .strict();

export type PolicyItem = z.output<typeof policyItem>;

/** Policies by name. */
export const policiesSection = defineSection({
  key: 'policies',
  description:
    'Policies (CEL expressions that allow, deny or ask for approval of tool calls), by name.',
  item: policyItem,

  async export({ em }) {
    const rows: (Policy & { serverName: string | null })[] = await em.query(
      `SELECT p.name, p.description, p.expression, p.effect, p.priority, p.enabled, p.approval,
              s.name AS "serverName"
       FROM policy p LEFT JOIN server s ON s.id = p.server_id
       ORDER BY p.priority, p.name`,
    );
    return rows.map((row) => ({
      name: row.name,
      ...(row.description ? { description: row.description } : {}),
      expression: row.expression,
      effect: row.effect,
      priority: row.priority,
      ...(row.serverName === null ? {} : { server: row.serverName }),
      ...(row.enabled ? {} : { enabled: false }),
      ...(row.approval === null ? {} : { approval: row.approval }),
    }));
  },

  async upsert(items, ctx) {
    for (const item of items) {
      ctx.policyNames.add(item.name);
      await upsertPolicy(ctx, item);
    }
  },

  async prune(_items, ctx) {
    await prunePolicies(ctx, () => true);
  },
});

/** Creates or updates one policy by name, after checking it as the REST API does. */
export async function upsertPolicy(ctx: ApplyContext, item: PolicyItem): Promise<void> {
  const where = `Policy '${item.name}'`;
  const serverId = await serverIdOf(ctx, item.server, where);
  try {
    await checkExpression(item.expression, where);
  } catch (error) {
    if (!(error instanceof PolicyException)) throw error;
    throw new ConfigDocumentException(ConfigDocumentErrorCode.Invalid, error.message);
  }
  if (item.effect !== 'approve' && item.approval !== null)
    throw new ConfigDocumentException(
      ConfigDocumentErrorCode.Invalid,
      `${where} has approval settings, which only an \`approve\` policy takes.`,
    );
  const wanted = {
    description: item.description,
    expression: item.expression,
    effect: item.effect,
    priority: item.priority,
    server: item.server,
    enabled: item.enabled,
    approval:
      item.effect === 'approve' ? (item.approval ?? { message: null, rememberSeconds: 0 }) : null,
  };
  const repository = ctx.em.getRepository(Policy);
  const stored = await repository.findOne({
    where: { name: item.name },
    relations: { server: true },
  });
  const fields: FieldChange[] = scalarChanges(
    stored && {
      description: stored.description,
      expression: stored.expression,
      effect: stored.effect,
      priority: stored.priority,
      server: stored.server?.name ?? null,
      enabled: stored.enabled,
      approval: stored.approval,
    },
    wanted,
  );
  if (stored !== null && fields.length === 0) return;
  const { server: _server, ...columns } = wanted;
  await repository.save(
    Object.assign(stored ?? repository.create({ name: item.name }), { ...columns, serverId }),
  );
  if (stored !== null && stored.serverId !== serverId) markServerChanged(ctx, stored.serverId);
  markServerChanged(ctx, serverId);
  ctx.changes.push({
    action: stored === null ? 'create' : 'update',
    kind: 'policy',
    name: item.name,
    fields,
  });
}

/** Deletes the policies `chosen` picks that the document does not name. */
export async function prunePolicies(
  ctx: ApplyContext,
  chosen: (name: string) => boolean,
): Promise<void> {
  const stored = await ctx.em
    .getRepository(Policy)
    .find({ order: { priority: 'ASC', name: 'ASC' } });
  for (const policy of stored) {
    if (ctx.policyNames.has(policy.name) || !chosen(policy.name)) continue;
    await ctx.em.getRepository(Policy).delete({ id: policy.id });
    markServerChanged(ctx, policy.serverId);
    ctx.changes.push({ action: 'delete', kind: 'policy', name: policy.name, fields: [] });
  }
}
