import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { type MemberField } from '../servers/server-members.store';
import { truncate } from './view-helpers';

/** Catalogues up to this size are listed whole; larger ones are searched on the server. */
export const PICKER_LIST_ALL_UP_TO = 2000;
/** Search results shown at once in a large catalogue. */
export const PICKER_SEARCH_LIMIT = 200;
/** Groups with at most this many entries in all start open when nothing is selected. */
const OPEN_ALL_UP_TO = 60;

/** What one picker picks, and the names of its form fields. */
export interface PickerKind {
  /** The form field of the ticked ids, as the REST body names it. */
  field: MemberField;
  /** Prefix of each checkbox's element id. */
  idPrefix: string;
  /** Nouns, as in "Search all 3000 prompts" and "1 prompt matches". */
  noun: string;
  singular: string;
  legend: string;
  /** The search box of a large catalogue, and the hidden field with the query last run. */
  queryField: string;
  shownQueryField: string;
  filterLabel: string;
}

export const PICKER_KINDS = {
  tools: {
    field: 'toolIds',
    idPrefix: 'tool',
    noun: 'tools',
    singular: 'tool',
    legend: 'Tools',
    queryField: 'pickerQ',
    shownQueryField: 'pickerShownQ',
    filterLabel: 'Filter the list',
  },
  resources: {
    field: 'resourceIds',
    idPrefix: 'resource',
    noun: 'resources',
    singular: 'resource',
    legend: 'Resources',
    queryField: 'resourcePickerQ',
    shownQueryField: 'resourcePickerShownQ',
    filterLabel: 'Filter resources',
  },
  resourceTemplates: {
    field: 'resourceTemplateIds',
    idPrefix: 'template',
    noun: 'resource templates',
    singular: 'resource template',
    legend: 'Resource templates',
    queryField: 'templatePickerQ',
    shownQueryField: 'templatePickerShownQ',
    filterLabel: 'Filter resource templates',
  },
  prompts: {
    field: 'promptIds',
    idPrefix: 'prompt',
    noun: 'prompts',
    singular: 'prompt',
    legend: 'Prompts',
    queryField: 'promptPickerQ',
    shownQueryField: 'promptPickerShownQ',
    filterLabel: 'Filter prompts',
  },
} as const satisfies Record<string, PickerKind>;

export type PickerKindName = keyof typeof PICKER_KINDS;

/** One entry as the picker lists it: a tool, resource, template or prompt. */
export interface PickerSource {
  id: string;
  gatewayId: string;
  /** What the entry is shown as: a virtual name, a prefixed URI. */
  name: string;
  description: string;
  enabled: boolean;
}

export interface PickerRow {
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
  items: PickerRow[];
  selectedCount: number;
  open: boolean;
}

export interface MemberPicker {
  kind: PickerKind;
  /**
   * Whether the picker is drawn. The tool picker always is, saying how to get tools; the others
   * only once there is something to pick.
   */
  shown: boolean;
  groups: PickerGroup[];
  /** Entries listed in the picker. */
  total: number;
  selectedCount: number;
  /** 'all' lists the whole catalogue; 'search' lists the picked entries and the search matches. */
  mode: 'all' | 'search';
  catalogueSize: number;
  query: string;
  /** How many entries match `query` in all (search mode with a query only). */
  matches: number | null;
  /** Whether some matches are not listed, being past PICKER_SEARCH_LIMIT. */
  moreMatches: boolean;
}

export interface MemberPickerInput {
  gateways: Pick<GatewayResponseDto, 'id' | 'name' | 'enabled'>[];
  /** The entries to list: the whole catalogue, or the picked ones and the search matches. */
  items: PickerSource[];
  selectedIds: Iterable<string>;
  mode: MemberPicker['mode'];
  catalogueSize: number;
  query?: string;
  matches?: number | null;
  /** How many of the matches are among `items` (all, if not given); the rest were left out. */
  matchesListed?: number;
}

/**
 * A picker of the server form: entries as checkboxes, grouped by gateway. It works as plain
 * HTML; the script only hides rows that do not match a filter, so hidden ticks are still sent. A
 * catalogue too large for one page is searched on the server instead, keeping what is picked.
 */
export function memberPicker(kind: PickerKind, input: MemberPickerInput): MemberPicker {
  const selected = new Set(input.selectedIds);
  const byGateway = new Map<string, PickerRow[]>();
  const seen = new Set<string>();
  for (const item of input.items) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    const row: PickerRow = {
      id: item.id,
      name: item.name,
      description: truncate(item.description, 120),
      enabled: item.enabled,
      checked: selected.has(item.id),
    };
    byGateway.set(item.gatewayId, [...(byGateway.get(item.gatewayId) ?? []), row]);
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
        items: rows,
        selectedCount,
        open: openAll || selectedCount > 0,
      };
    });
  return {
    kind,
    shown: kind.field === 'toolIds' || input.catalogueSize > 0,
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

/** The tool picker, which every server form has. */
export function toolPicker(input: MemberPickerInput): MemberPicker {
  return memberPicker(PICKER_KINDS.tools, input);
}
