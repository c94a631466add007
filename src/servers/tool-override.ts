import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type JsonObject } from '../common/json-value';

/** What a server may change of how it shows a tool; null leaves the upstream's. */
export interface ToolOverrideValues {
  name: string | null;
  title: string | null;
  description: string | null;
  annotations: JsonObject | null;
}

/** The `tools/list` entry with the override applied; annotations merge key by key. */
export function applyToolOverride(definition: McpTool, override: ToolOverrideValues): McpTool {
  return {
    ...definition,
    ...(override.name === null ? {} : { name: override.name }),
    ...(override.title === null ? {} : { title: override.title }),
    ...(override.description === null ? {} : { description: override.description }),
    ...(override.annotations === null
      ? {}
      : { annotations: { ...definition.annotations, ...override.annotations } }),
  };
}
