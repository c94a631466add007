import { type EntityManager } from 'typeorm';
import { type PromptDefinition } from '../prompts/prompt-definition';
import { type PromptWriter } from '../prompts/prompt.writer';
import { type ResourceTemplateDefinition } from '../resources/resource-definition';
import { type ResourceWriter } from '../resources/resource.writer';
import { type ToolDefinition } from '../tools/tool-definition';
import { type JsonObject } from '../common/json-value';
import { type ToolWriter } from '../tools/tool.writer';
import { type PinnedKindSpec } from './pinned-kinds';

/** The writers of the pinned kinds, each the one write path of its entries. */
export interface DefinitionWriters {
  tools: ToolWriter;
  prompts: PromptWriter;
  resources: ResourceWriter;
}

/**
 * Writes a held definition into its entry through the kind's own writer (content hash too): what
 * an approval does, and a rescan when the settings no longer hold the change.
 */
export async function writeHeldDefinition(
  writers: DefinitionWriters,
  em: EntityManager,
  spec: PinnedKindSpec,
  id: string,
  definition: JsonObject,
): Promise<void> {
  switch (spec.kind) {
    case 'tool':
      return writers.tools.update(em, id, definition as unknown as ToolDefinition);
    case 'prompt':
      return writers.prompts.update(em, [
        { id, definition: definition as unknown as PromptDefinition },
      ]);
    case 'resource-template':
      return writers.resources.updateTemplates(em, [
        { id, definition: definition as unknown as ResourceTemplateDefinition },
      ]);
  }
}
