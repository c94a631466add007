import { TeamScope } from './team-scope';

describe('TeamScope', () => {
  const a = '00000000-0000-4000-8000-00000000000a';
  const b = '00000000-0000-4000-8000-00000000000b';

  it('lets admins see and manage everything', () => {
    expect(TeamScope.ALL.canSee(b)).toBe(true);
    expect(TeamScope.ALL.canManage(null)).toBe(true);
  });

  it('lets others see their teams and global records, and manage only their teams', () => {
    const scope = TeamScope.teams([a]);
    expect([scope.canSee(a), scope.canSee(null), scope.canSee(b)]).toEqual([true, true, false]);
    expect([scope.canManage(a), scope.canManage(null), scope.canManage(b)]).toEqual([
      true,
      false,
      false,
    ]);
  });
});
