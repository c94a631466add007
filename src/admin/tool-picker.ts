import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { type ToolResponseDto } from '../tools/dto/tool-response.dto';
import { truncate } from './view-helpers';

/** Groups with at most this many tools in all start open when nothing is selected. */
const OPEN_ALL_UP_TO = 60;

export interface PickerTool {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  checked: boolean;
  /** Lower-case text the script filters on. */
  search: string;
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
  total: number;
  selectedCount: number;
}

/**
 * The server form's tool picker: every tool as a checkbox, grouped by gateway. It works as plain
 * HTML; the script only hides rows that do not match a filter, so hidden ticks are still sent.
 */
export function toolPicker(
  gateways: Pick<GatewayResponseDto, 'id' | 'name' | 'enabled'>[],
  tools: ToolResponseDto[],
  selectedIds: Iterable<string>,
): ToolPicker {
  const selected = new Set(selectedIds);
  const byGateway = new Map<string, PickerTool[]>();
  for (const tool of tools) {
    const row: PickerTool = {
      id: tool.id,
      name: tool.name,
      description: truncate(tool.description, 120),
      enabled: tool.enabled,
      checked: selected.has(tool.id),
      search: `${tool.name} ${tool.description}`.toLowerCase().slice(0, 500),
    };
    byGateway.set(tool.gatewayId, [...(byGateway.get(tool.gatewayId) ?? []), row]);
  }
  const total = tools.length;
  const groups = [...gateways]
    .sort((a, b) => a.name.localeCompare(b.name))
    .filter((gateway) => byGateway.has(gateway.id))
    .map((gateway): PickerGroup => {
      const rows = byGateway.get(gateway.id)!;
      const selectedCount = rows.filter((row) => row.checked).length;
      return {
        gatewayId: gateway.id,
        gatewayName: gateway.name,
        gatewayEnabled: gateway.enabled,
        tools: rows,
        selectedCount,
        open: selectedCount > 0 || (selected.size === 0 && total <= OPEN_ALL_UP_TO),
      };
    });
  return {
    groups,
    total,
    selectedCount: groups.reduce((sum, group) => sum + group.selectedCount, 0),
  };
}
