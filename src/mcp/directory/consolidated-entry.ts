import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type PolicyTool } from '../../policies/policy-tool';
import { type ConsolidatedTarget, type DirectoryTool } from './directory-tool';

/** The argument that picks a consolidated tool's member. */
export const TARGET_ARGUMENT = 'target';

/** A consolidated tool as stored, for its entry. */
export interface ConsolidatedFacts {
  id: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A consolidated tool's directory entry for these targets (null without any): listed like a tool,
 * its schema the shared one with a required `target` enum of exactly these labels. It has no
 * gateway of its own; a call goes to the chosen target's member tool.
 */
export function consolidatedEntry(
  facts: ConsolidatedFacts,
  targets: readonly ConsolidatedTarget[],
): DirectoryTool | null {
  if (targets.length === 0) return null;
  const definition: McpTool = {
    name: facts.name,
    ...(facts.description ? { description: facts.description } : {}),
    inputSchema: withTarget(facts.inputSchema, targets) as McpTool['inputSchema'],
  };
  Object.assign(definition, fromMembers(targets));
  const policy: PolicyTool = {
    ...targets[0]!.tool.policy,
    id: facts.id,
    name: facts.name,
    listedName: facts.name,
    originalName: facts.name,
    gateway: '',
  };
  return {
    id: facts.id,
    name: facts.name,
    gatewayId: '',
    gatewaySlug: '',
    originalName: facts.name,
    // Never twelve hex digits: no hashed backend name reaches a consolidated tool.
    toolHash: `consolidated:${facts.id}`,
    visibility: ['model'],
    definition,
    policy,
    consolidated: { inputSchema: facts.inputSchema, targets },
  };
}

/** The entry narrowed to the targets `keep` lets through; null when none is left. */
export function narrowedEntry(
  entry: DirectoryTool,
  keep: (target: ConsolidatedTarget) => boolean,
): DirectoryTool | null {
  const route = entry.consolidated!;
  const kept = route.targets.filter(keep);
  if (kept.length === route.targets.length) return entry;
  if (kept.length === 0) return null;
  // Nothing of a member left out may show: its annotations and output schema are taken from those
  // kept, and its description, where the tool's is that member's own (the default), is theirs.
  const { annotations: _annotations, outputSchema: _output, ...definition } = entry.definition;
  const hidden = route.targets.filter((target) => !kept.includes(target));
  const described = hidden.some(
    (target) => target.tool.definition.description === definition.description,
  );
  const description = kept[0]!.tool.definition.description;
  return {
    ...entry,
    definition: {
      ...definition,
      ...(described ? { description } : {}),
      ...fromMembers(kept),
      inputSchema: withTarget(route.inputSchema, kept) as McpTool['inputSchema'],
    },
    consolidated: { ...route, targets: kept },
  };
}

/** What a consolidated tool shows of its members: the first's annotations; an output schema all share. */
function fromMembers(
  targets: readonly ConsolidatedTarget[],
): Pick<McpTool, 'annotations' | 'outputSchema'> {
  const first = targets[0]!.tool.definition;
  const output = JSON.stringify(first.outputSchema ?? null);
  const shared =
    first.outputSchema &&
    targets.every(({ tool }) => JSON.stringify(tool.definition.outputSchema ?? null) === output);
  return {
    ...(first.annotations ? { annotations: first.annotations } : {}),
    ...(shared ? { outputSchema: first.outputSchema } : {}),
  };
}

function withTarget(
  schema: Record<string, unknown>,
  targets: readonly ConsolidatedTarget[],
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const labels = targets.map(({ target }) => target);
  return {
    ...schema,
    type: 'object',
    properties: {
      ...properties,
      [TARGET_ARGUMENT]: {
        type: 'string',
        enum: labels,
        description: `Where to run the tool: one of ${labels.join(', ')}.`,
      },
    },
    required: [...required.filter((name) => name !== TARGET_ARGUMENT), TARGET_ARGUMENT],
  };
}
