import { type ToolResponseDto } from '../tools/dto/tool-response.dto';
import { PICKER_KINDS, memberPicker, toolPicker } from './member-picker';

function tool(id: string, gatewayId: string, name: string): ToolResponseDto {
  return {
    id,
    gatewayId,
    name,
    description: `<b>${name}</b> does things`,
    enabled: true,
  } as ToolResponseDto;
}

describe('member pickers', () => {
  const gateways = [
    { id: 'g2', name: 'Zeta', enabled: false },
    { id: 'g1', name: 'Alpha', enabled: true },
    { id: 'g3', name: 'Empty', enabled: true },
  ];
  const tools = [
    tool('t2', 'g1', 'alpha-b'),
    tool('t1', 'g1', 'alpha-a'),
    tool('t3', 'g2', 'zeta-a'),
  ];
  const all = { gateways, items: tools, mode: 'all' as const, catalogueSize: 3 };

  it('groups tools by gateway name and sorts them, leaving out gateways without tools', () => {
    const picker = toolPicker({ ...all, selectedIds: [] });
    expect(
      picker.groups.map((group) => [group.gatewayName, group.items.map((row) => row.id)]),
    ).toEqual([
      ['Alpha', ['t1', 't2']],
      ['Zeta', ['t3']],
    ]);
    expect(picker.groups[1]!.gatewayEnabled).toBe(false);
    expect(picker).toMatchObject({ total: 3, mode: 'all', matches: null });
  });

  it('ticks the selected tools and opens only their groups', () => {
    const picker = toolPicker({ ...all, selectedIds: ['t3'] });
    expect(picker.selectedCount).toBe(1);
    expect(picker.groups.map((group) => [group.open, group.selectedCount])).toEqual([
      [false, 0],
      [true, 1],
    ]);
    expect(picker.groups[1]!.items[0]).toMatchObject({
      checked: true,
      description: '<b>zeta-a</b> does things',
    });
  });

  it('opens every group of a small catalogue when nothing is selected', () => {
    expect(toolPicker({ ...all, selectedIds: [] }).groups.every((group) => group.open)).toBe(true);
  });

  it('lists picked tools and search matches once each, all open, in search mode', () => {
    const picker = toolPicker({
      gateways,
      items: [tool('t3', 'g2', 'zeta-a'), tool('t1', 'g1', 'alpha-a'), tool('t3', 'g2', 'zeta-a')],
      selectedIds: ['t3'],
      mode: 'search',
      catalogueSize: 5000,
      query: 'alpha',
      matches: 1,
    });
    expect(picker).toMatchObject({
      total: 2,
      selectedCount: 1,
      query: 'alpha',
      matches: 1,
      moreMatches: false,
    });
    expect(picker.groups.every((group) => group.open)).toBe(true);
  });

  it('says when search matches were left out, whatever else is picked', () => {
    const search = { gateways, selectedIds: ['t3'], mode: 'search' as const, catalogueSize: 5000 };
    const listed = [tool('t3', 'g2', 'zeta-a'), tool('t1', 'g1', 'alpha-a')];
    expect(
      toolPicker({ ...search, items: listed, query: 'alpha', matches: 1, matchesListed: 1 })
        .moreMatches,
    ).toBe(false);
    expect(
      toolPicker({ ...search, items: listed, query: 'a', matches: 900, matchesListed: 1 })
        .moreMatches,
    ).toBe(true);
  });

  it('draws the tool picker always, and the others only once there is something to pick', () => {
    const empty = { gateways, items: [], selectedIds: [], mode: 'all' as const, catalogueSize: 0 };
    expect(toolPicker(empty).shown).toBe(true);
    expect(memberPicker(PICKER_KINDS.prompts, empty).shown).toBe(false);
    const prompts = memberPicker(PICKER_KINDS.prompts, { ...all, selectedIds: ['t1'] });
    expect(prompts).toMatchObject({ shown: true, selectedCount: 1 });
    expect(prompts.kind.field).toBe('promptIds');
  });
});
