import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { type ToolResponseDto } from '../tools/dto/tool-response.dto';
import { truncate } from './view-helpers';

/** Catalogues up to this size are listed whole; larger ones are searched on the server. */
export const PICKER_LIST_ALL_UP_TO = 2000;
/** Search results shown at once in a large catalogue. */
export const PICKER_SEARCH_LIMIT = 200;
/** Groups with at most this many tools in all start open when nothing is selected. */
const OPEN_ALL_UP_TO = 60;

export interface PickerTool {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  checked: boolean;
}

export interface PickerGroup {
  gatewayId: string;
  gatewayName: string;
  gatewayEnabled: boolean;
  tools: PickerTool[];
  selectedCount: number;
  open: boolean;
}

export interface ToolPicker {
  groups: PickerGroup[];
  /** Tools listed in the picker. */
  total: number;
  selectedCount: number;
  /** 'all' lists the whole catalogue; 'search' lists the picked tools and the search matches. */
  mode: 'all' | 'search';
  catalogueSize: number;
  query: string;
  /** How many tools match `query` in all (search mode with a query only). */
  matches: number | null;
  /** Whether some matches are not listed, being past PICKER_SEARCH_LIMIT. */
  moreMatches: boolean;
}

export interface ToolPickerInput {
  gateways: Pick<GatewayResponseDto, 'id' | 'name' | 'enabled'>[];
  /** The tools to list: the whole catalogue, or the picked tools and the search matches. */
  tools: ToolResponseDto[];
  selectedIds: Iterable<string>;
  mode: ToolPicker['mode'];
  catalogueSize: number;
  query?: string;
  matches?: number | null;
  /** How many of the matches are among `tools` (all, if not given); the rest were left out. */
  matchesListed?: number;
}

/**
 * The server form's tool picker: tools as checkboxes, grouped by gateway. It works as plain HTML;
 * the script only hides rows that do not match a filter, so hidden ticks are still sent. A
 * catalogue too large for one page is searched on the server instead, keeping what is picked.
 */
export function toolPicker(input: ToolPickerInput): ToolPicker {
  const selected = new Set(input.selectedIds);
  const byGateway = new Map<string, PickerTool[]>();
  const seen = new Set<string>();
  for (const tool of input.tools) {
    if (seen.has(tool.id)) continue;
    seen.add(tool.id);
    const row: PickerTool = {
      id: tool.id,
      name: tool.name,
      description: truncate(tool.description, 120),
      enabled: tool.enabled,
      checked: selected.has(tool.id),
    };
    byGateway.set(tool.gatewayId, [...(byGateway.get(tool.gatewayId) ?? []), row]);
  }
  const total = seen.size;
  const openAll = input.mode === 'search' || (selected.size === 0 && total <= OPEN_ALL_UP_TO);
  const groups = [...input.gateways]
    .sort((a, b) => a.name.localeCompare(b.name))
    .filter((gateway) => byGateway.has(gateway.id))
    .map((gateway): PickerGroup => {
      const rows = byGateway.get(gateway.id)!.sort((a, b) => a.name.localeCompare(b.name));
      const selectedCount = rows.filter((row) => row.checked).length;
      return {
        gatewayId: gateway.id,
        gatewayName: gateway.name,
        gatewayEnabled: gateway.enabled,
        tools: rows,
        selectedCount,
        open: openAll || selectedCount > 0,
      };
    });
  return {
    groups,
    total,
    selectedCount: groups.reduce((sum, group) => sum + group.selectedCount, 0),
    mode: input.mode,
    catalogueSize: input.catalogueSize,
    query: input.query ?? '',
    matches: input.matches ?? null,
    moreMatches: (input.matchesListed ?? input.matches ?? 0) < (input.matches ?? 0),
  };
}
