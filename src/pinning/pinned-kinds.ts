import { type DomainException } from '../common/domain.exception';
import { Prompt } from '../prompts/prompt.entity';
import { PromptErrorCode, PromptException } from '../prompts/prompt.exception';
import { ResourceTemplate } from '../resources/resource-template.entity';
import { ResourceErrorCode, ResourceException } from '../resources/resource.exception';
import { virtualUri, virtualUriExpression } from '../resources/resource-uri';
import { type ToolNameQuery } from '../virtual-names/tool-name.query';
import { Tool } from '../tools/tool.entity';
import { type JsonObject } from '../common/json-value';
import { ToolErrorCode, ToolException } from '../tools/tool.exception';
import { type PinnedTable } from './pin-writer';

/** The kinds of entries whose definitions are pinned, as the API and the pages name them. */
export const PIN_KINDS = ['tool', 'prompt', 'resource-template'] as const;
export type PinKind = (typeof PIN_KINDS)[number];

export type PinnedEntry = Tool | Prompt | ResourceTemplate;

/** What the pin operations need to know of one kind of entry. */
export interface PinnedKindSpec {
  kind: PinKind;
  entity: typeof Tool | typeof Prompt | typeof ResourceTemplate;
  table: PinnedTable;
  /** What messages call one entry. */
  noun: string;
  /** SQL for the name clients see (virtual name, or prefixed URI template) of the row `alias`. */
  nameSql(names: ToolNameQuery, alias: string): string;
  /** The same name, from the gateway's slug and the entry's upstream key. */
  nameFor(names: ToolNameQuery, gatewaySlug: string, key: string): string;
  /** The upstream key of a stored entry. */
  keyOf(entry: PinnedEntry): string;
  /** The stored definition, in the shape a sync compares and holds (its content hash's input). */
  definitionOf(entry: PinnedEntry): JsonObject;
  notFound(id: string): DomainException<string>;
}

const TOOL: PinnedKindSpec = {
  kind: 'tool',
  entity: Tool,
  table: 'tool',
  noun: 'tool',
  nameSql: (names, alias) => names.expression(alias),
  nameFor: (names, gatewaySlug, key) => names.name(gatewaySlug, key),
  keyOf: (entry) => (entry as Tool).originalName,
  definitionOf: (entry) => {
    const tool = entry as Tool;
    return {
      name: tool.originalName,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      meta: tool.meta,
    };
  },
  notFound: (id) => new ToolException(ToolErrorCode.NotFound, `Tool ${id} does not exist.`),
};

const PROMPT: PinnedKindSpec = {
  kind: 'prompt',
  entity: Prompt,
  table: 'prompt',
  noun: 'prompt',
  nameSql: (names, alias) => names.expression(alias),
  nameFor: (names, gatewaySlug, key) => names.name(gatewaySlug, key),
  keyOf: (entry) => (entry as Prompt).originalName,
  definitionOf: (entry) => {
    const prompt = entry as Prompt;
    return {
      name: prompt.originalName,
      title: prompt.title,
      description: prompt.description,
      arguments: prompt.arguments,
      meta: prompt.meta,
    };
  },
  notFound: (id) => new PromptException(PromptErrorCode.NotFound, `Prompt ${id} does not exist.`),
};

const TEMPLATE: PinnedKindSpec = {
  kind: 'resource-template',
  entity: ResourceTemplate,
  table: 'resource_template',
  noun: 'resource template',
  nameSql: (_names, alias) => virtualUriExpression(alias, 'uri_template'),
  nameFor: (_names, gatewaySlug, key) => virtualUri(gatewaySlug, key),
  keyOf: (entry) => (entry as ResourceTemplate).uriTemplate,
  definitionOf: (entry) => {
    const template = entry as ResourceTemplate;
    return {
      uriTemplate: template.uriTemplate,
      name: template.name,
      title: template.title,
      description: template.description,
      mimeType: template.mimeType,
      annotations: template.annotations,
      meta: template.meta,
    };
  },
  notFound: (id) =>
    new ResourceException(
      ResourceErrorCode.TemplateNotFound,
      `Resource template ${id} does not exist.`,
    ),
};

export const PINNED_KINDS: Record<PinKind, PinnedKindSpec> = {
  tool: TOOL,
  prompt: PROMPT,
  'resource-template': TEMPLATE,
};

/** The name clients see of a stored entry. */
export function clientNameOf(
  spec: PinnedKindSpec,
  names: ToolNameQuery,
  entry: PinnedEntry,
): string {
  return spec.nameFor(names, entry.gatewaySlug, spec.keyOf(entry));
}
