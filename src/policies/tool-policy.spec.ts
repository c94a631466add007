import { type PolicyRule, ToolPolicy } from './tool-policy';

const rule = (extra: Partial<PolicyRule>): PolicyRule => ({
  toolId: 't1',
  effect: 'deny',
  teamId: null,
  role: null,
  ...extra,
});

describe('ToolPolicy', () => {
  const member = { role: 'member' as const, teamIds: ['red'] };
  const operator = { role: 'operator' as const, teamIds: ['blue'] };

  it('lets everyone use a tool without rules', () => {
    const policy = new ToolPolicy([rule({ toolId: 'other' })]);
    expect(policy.allows(member, 't1')).toBe(true);
    expect(ToolPolicy.OPEN.empty).toBe(true);
    expect(policy.empty).toBe(false);
  });

  it('denies by role and by team', () => {
    const byRole = new ToolPolicy([rule({ role: 'member' })]);
    expect(byRole.allows(member, 't1')).toBe(false);
    expect(byRole.allows(operator, 't1')).toBe(true);
    const byTeam = new ToolPolicy([rule({ teamId: 'blue' })]);
    expect(byTeam.allows(member, 't1')).toBe(true);
    expect(byTeam.allows(operator, 't1')).toBe(false);
  });

  it('makes allow rules an allow-list, which a matching deny still overrides', () => {
    const policy = new ToolPolicy([rule({ effect: 'allow', teamId: 'red' })]);
    expect(policy.allows(member, 't1')).toBe(true);
    expect(policy.allows(operator, 't1')).toBe(false);
    const both = new ToolPolicy([
      rule({ effect: 'allow', teamId: 'red' }),
      rule({ effect: 'deny', role: 'member' }),
    ]);
    expect(both.allows(member, 't1')).toBe(false);
  });

  it('keys principals by role and the teams rules name only', () => {
    const policy = new ToolPolicy([rule({ teamId: 'red' })]);
    expect(policy.keyOf({ role: 'member', teamIds: ['x', 'red'] })).toBe('member:red');
    expect(policy.keyOf({ role: 'member', teamIds: ['y'] })).toBe('member:');
  });
});
