import { type CallToolRequest } from '@modelcontextprotocol/server';
import { TARGET_ARGUMENT } from '../directory/consolidated-entry';
import { type DirectoryTool } from '../directory/directory-tool';
import { type ToolDirectory } from '../directory/tool-directory';
import { invalidParams, unknownTool } from '../protocol/mcp-errors';

/** A consolidated tool's call, once routed: the member to call and the call without `target`. */
export interface RoutedCall {
  tool: DirectoryTool;
  call: CallToolRequest['params'];
  target: string;
}

/**
 * Routes a call of a consolidated tool to the member its `target` names, among the targets this
 * caller may reach (`visible`): a target that does not exist and one hidden from the caller get
 * the same error, which lists the caller's own targets. The member's call then goes the one
 * normal way, judged as the member tool.
 */
export function routedCall(visible: ToolDirectory, call: CallToolRequest['params']): RoutedCall {
  const entry = visible.byName.get(call.name);
  if (!entry?.consolidated) throw unknownTool(call.name);
  const { [TARGET_ARGUMENT]: target, ...rest } = call.arguments ?? {};
  const labels = entry.consolidated.targets.map((each) => each.target);
  const chosen =
    typeof target === 'string'
      ? entry.consolidated.targets.find((each) => each.target === target)
      : undefined;
  if (!chosen)
    throw invalidParams(
      `${call.name} needs a '${TARGET_ARGUMENT}' argument, one of: ${labels.join(', ')}` +
        (typeof target === 'string' ? ` ('${target.slice(0, 64)}' is none of them)` : ''),
    );
  return { tool: chosen.tool, call: { ...call, arguments: rest }, target: chosen.target };
}
