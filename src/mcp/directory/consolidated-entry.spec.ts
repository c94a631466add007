import { policyTool } from '../../../test/support/policy-tools';
import { consolidatedEntry, narrowedEntry } from './consolidated-entry';
import { type DirectoryTool } from './directory-tool';

function member(name: string, outputSchema?: Record<string, unknown>): DirectoryTool {
  return {
    id: `id-${name}`,
    name,
    gatewayId: `gw-${name}`,
    gatewaySlug: name,
    originalName: 'forecast',
    toolHash: '0123456789ab',
    visibility: ['model', 'app'],
    definition: {
      name,
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      ...(outputSchema ? { outputSchema: outputSchema } : {}),
    },
    policy: policyTool(name),
  };
}

const facts = {
  id: 'c1',
  name: 'forecast',
  description: 'The forecast',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('consolidatedEntry', () => {
  const targets = [
    { target: 'eu', tool: member('eu') },
    { target: 'us', tool: member('us') },
  ];

  it('lists the shared schema with a required target enum of the given labels', () => {
    const entry = consolidatedEntry(facts, targets)!;
    expect(entry.definition).toEqual({
      name: 'forecast',
      description: 'The forecast',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          target: { type: 'string', enum: ['eu', 'us'], description: expect.any(String) },
        },
        required: ['city', 'target'],
      },
    });
    expect(entry.toolHash).not.toMatch(/^[0-9a-f]{12}$/);
  });

  it('is none without targets, and a narrowed entry keeps only the kept labels', () => {
    expect(consolidatedEntry(facts, [])).toBeNull();
    const entry = consolidatedEntry(facts, targets)!;
    const narrowed = narrowedEntry(entry, ({ target }) => target === 'us')!;
    expect(
      (narrowed.definition.inputSchema.properties as { target: { enum: string[] } }).target.enum,
    ).toEqual(['us']);
    expect(narrowed.consolidated!.targets.map(({ target }) => target)).toEqual(['us']);
    expect(narrowedEntry(entry, () => true)).toBe(entry);
    expect(narrowedEntry(entry, () => false)).toBeNull();
  });

  it('shows an output schema only when every member has the same one', () => {
    const same = { type: 'object', properties: { t: { type: 'number' } } };
    expect(
      consolidatedEntry(facts, [
        { target: 'eu', tool: member('eu', same) },
        { target: 'us', tool: member('us', same) },
      ])!.definition.outputSchema,
    ).toEqual(same);
    expect(
      consolidatedEntry(facts, [
        { target: 'eu', tool: member('eu', same) },
        { target: 'us', tool: member('us') },
      ])!.definition.outputSchema,
    ).toBeUndefined();
  });

  it('narrowed, shows nothing of a member left out: its description, annotations or output schema', () => {
    const secret = member('payroll', { type: 'object' });
    secret.definition.description = 'Reads the payroll secrets of the company';
    secret.definition.annotations = { destructiveHint: true };
    const open = member('weather');
    open.definition.description = 'The weather';
    const entry = consolidatedEntry({ ...facts, description: secret.definition.description }, [
      { target: 'pay', tool: secret },
      { target: 'sky', tool: open },
    ])!;
    const narrowed = narrowedEntry(entry, ({ target }) => target === 'sky')!;
    expect(narrowed.definition).toMatchObject({
      description: 'The weather',
      annotations: { readOnlyHint: true },
    });
    expect(narrowed.definition.outputSchema).toBeUndefined();
    // A description of the tool's own stays.
    const own = narrowedEntry(
      consolidatedEntry(facts, entry.consolidated!.targets)!,
      ({ target }) => target === 'sky',
    )!;
    expect(own.definition.description).toBe('The forecast');
  });
});
