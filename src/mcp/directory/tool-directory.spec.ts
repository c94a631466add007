import { policyTool } from '../../../test/support/policy-tools';
import { type ToolVisibility } from '../../tools/tool-visibility';
import { type DirectoryTool } from './directory-tool';
import { ToolDirectory } from './tool-directory';

function tool(name: string, toolHash: string, visibility: ToolVisibility[]): DirectoryTool {
  return {
    id: `${name}-${toolHash}`,
    name,
    gatewayId: 'g1',
    gatewaySlug: 'gw',
    originalName: name,
    toolHash,
    visibility,
    definition: { name, inputSchema: { type: 'object' } },
    policy: policyTool(name, { id: `${name}-${toolHash}` }),
  };
}

describe('ToolDirectory', () => {
  // An app-only tool is listed under `<hash>_<original>`, which another gateway's slug and tool
  // can spell as a virtual name.
  const appOnly = tool('deadbeefcafe_save', 'deadbeefcafe', ['app']);
  const virtual = tool('deadbeefcafe_save', '111111111111', ['model', 'app']);

  it.each([
    ['the app-only tool first', [appOnly, virtual]],
    ['the virtual name first', [virtual, appOnly]],
  ])('resolves a name to the virtual name over a hashed one, with %s', (_order, tools) => {
    const directory = new ToolDirectory({ kind: 'all' }, null, tools);
    expect(directory.byName.get('deadbeefcafe_save')).toBe(virtual);
    expect(directory.definitions).toEqual([virtual.definition]);
    expect(directory.byHash.get('deadbeefcafe')).toBe(appOnly);
  });

  it('lists app-only tools by hashed name when nothing shadows them', () => {
    const other = tool('cafebabecafe_refresh', 'cafebabecafe', ['app']);
    const directory = new ToolDirectory({ kind: 'all' }, null, [other, virtual]);
    expect(directory.byName.get('cafebabecafe_refresh')).toBe(other);
    expect(directory.definitions.map((definition) => definition.name)).toEqual([
      'cafebabecafe_refresh',
      'deadbeefcafe_save',
    ]);
  });
});
