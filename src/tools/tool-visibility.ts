import { type JsonObject } from '../common/json-value';

export const TOOL_VISIBILITIES = ['model', 'app'] as const;
export type ToolVisibility = (typeof TOOL_VISIBILITIES)[number];

/** `_meta.ui.visibility`; absent means both the model and apps may use the tool. */
export function toolVisibility(meta: JsonObject | null): ToolVisibility[] {
  const ui = meta?.ui;
  const declared =
    typeof ui === 'object' && ui !== null ? (ui as JsonObject).visibility : undefined;
  if (!Array.isArray(declared)) return [...TOOL_VISIBILITIES];
  return TOOL_VISIBILITIES.filter((visibility) => declared.includes(visibility));
}
