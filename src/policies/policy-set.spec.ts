import { type Principal } from '../auth/principal';
import { compileExpression, ExpressionError } from './cel-expression';
import { ARGUMENT_CHARACTERS_LIMIT } from './cel-limits';
import {
  ARGUMENT_VALUES_LIMIT,
  type PolicyDefinition,
  PolicyEvaluationFailed,
  PolicyInputTooLarge,
  PolicySet,
  VIEW_TOOLS,
} from './policy-set';
import { withStandardAnnotations } from './policy-input';
import { type PolicyTool } from './policy-tool';
import { policyTool } from '../../test/support/policy-tools';

const principal = (extra: Partial<Principal> = {}): Principal => ({
  subject: 'user:ann',
  name: 'ann',
  userId: 'ann',
  role: 'member',
  teamIds: ['t-red'],
  serverIds: null,
  audience: null,
  tokenId: null,
  source: 'session',
  ...extra,
});

const tool = (name: string, extra: Partial<PolicyTool> = {}): PolicyTool =>
  policyTool(name, {
    originalName: name.replace(/^fs-/, ''),
    gateway: 'fs',
    title: `Title of ${name}`,
    annotations: withStandardAnnotations({ readOnlyHint: name.includes('read') }),
    ...extra,
  });

let ids = 0;
const policy = (
  expression: string,
  effect: PolicyDefinition['effect'],
  extra: Partial<PolicyDefinition> = {},
): PolicyDefinition => ({
  id: `p${(ids += 1)}`,
  name: `policy-${ids}`,
  expression,
  effect,
  priority: 0,
  approval: null,
  ...extra,
});

const TEAMS = new Map([
  ['t-red', 'red'],
  ['t-blue', 'blue'],
]);
const NOW = new Date('2026-03-02T10:00:00Z');

async function compiled(...definitions: PolicyDefinition[]) {
  const errors: string[] = [];
  const set = await PolicySet.compile(definitions, TEAMS, (failed, toolName) =>
    errors.push(`${failed.name}@${toolName}`),
  );
  return { set, errors };
}

async function refusal(expression: string): Promise<ExpressionError> {
  const error = await compileExpression(expression).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ExpressionError);
  return error as ExpressionError;
}

describe('policy expressions', () => {
  it('refuse what does not compile to a bool, saying where', async () => {
    const parse = await refusal('principal.role ==\n  ');
    expect(parse.message).toContain('Unexpected token');
    expect(parse.position).toMatchObject({ line: 2 });
    const typo = await refusal('principal.usr == "ann"');
    expect(typo.message).toContain('usr');
    expect((await refusal('principal.role + 1 == 2')).message).toContain('no such overload');
    expect((await refusal('1 + 2')).message).toContain('gives int');
    expect((await refusal('x'.repeat(4097))).message).toContain('at most 4096');
    expect(
      (await refusal('((((((((((((((((((((((((((((((((((true))))))))))))))))))))))))))))))))))'))
        .message,
    ).toContain('maxDepth');
  });

  it('refuse backtracking matches, loops in loops and args inside a loop', async () => {
    expect((await refusal('tool.name.matches("^(a+)+$")')).message).toContain('RE2');
    expect(
      (await refusal('principal.teams.exists(t, principal.teamIds.exists(i, i == t))')).message,
    ).toContain('inside another loop');
    const inLoop = await refusal('principal.teams.exists(t, args.team == t)');
    expect(inLoop.message).toContain('`args` cannot be read inside');
    expect(inLoop.position?.column).toBe(27);
    await compileExpression('has(args.paths) && args.paths.exists(p, p.startsWith("/etc"))');
  });

  it('run matches on RE2, in linear time even for a pattern that backtracks', async () => {
    const expression = await compileExpression('matches(args.s, "^(a+)+$")');
    expect(expression.evaluate({ args: { s: `${'a'.repeat(5000)}!` } })).toBe(false);
    expect(expression.evaluate({ args: { s: 'aaa' } })).toBe(true);
    const bad = await compileExpression('matches(args.s, args.p)');
    expect(() => bad.evaluate({ args: { s: 'a', p: '(' } })).toThrow(/invalid pattern/);
  });

  it('know which principal fields, teams and call variables they read', async () => {
    const uses = async (text: string) => (await compileExpression(text)).uses;
    expect(await uses('principal.role == "admin" && "red" in principal.teams')).toEqual({
      principal: new Set(['role', 'teams']),
      teams: { names: new Set(['red']), ids: new Set() },
      args: false,
      now: false,
    });
    expect((await uses('principal.teams.exists(t, t.startsWith("eng-"))')).teams).toBeNull();
    expect((await uses('has(principal.user) && args.x == 1')).principal).toEqual(new Set(['user']));
    expect(await uses('now.getHours("UTC") < 8')).toMatchObject({ args: false, now: true });
  });
});

describe('PolicySet', () => {
  it('lets everyone call everything without policies', async () => {
    const { set } = await compiled();
    expect(set).toBe(PolicySet.OPEN);
    expect(set.decide(principal(), tool('fs-read'), {}, NOW)).toEqual({
      effect: 'allow',
      policy: null,
      approval: null,
    });
  });

  it('decides by the first true policy, by priority then name', async () => {
    const { set } = await compiled(
      policy('true', 'deny', { name: 'b-deny', priority: 10 }),
      policy('tool.name == "fs-read"', 'allow', { name: 'z-allow', priority: 5 }),
      policy('tool.name == "fs-write"', 'approve', {
        name: 'a-approve',
        priority: 10,
        approval: { message: 'Sure?', rememberSeconds: 60 },
      }),
    );
    expect(set.order.map((p) => p.name)).toEqual(['z-allow', 'a-approve', 'b-deny']);
    expect(set.decide(principal(), tool('fs-read'), {}, NOW).policy?.name).toBe('z-allow');
    expect(set.decide(principal(), tool('fs-write'), {}, NOW)).toEqual({
      effect: 'approve',
      policy: { id: expect.any(String) as string, name: 'a-approve' },
      approval: { message: 'Sure?', rememberSeconds: 60 },
      revision: expect.any(String) as string,
    });
    expect(set.decide(principal(), tool('fs-delete'), {}, NOW).effect).toBe('deny');
    expect(set.listed(principal(), tool('fs-delete'))).toBe(false);
    expect(set.listed(principal(), tool('fs-write'))).toBe(true);
  });

  it("gives an approve decision its policy's revision: another for any edit but the name", async () => {
    const approving = (change: Partial<PolicyDefinition>) =>
      compiled(
        policy('tool.name == "fs-write"', 'approve', {
          name: 'ask',
          approval: { message: 'Sure?', rememberSeconds: 60 },
          ...change,
        }),
      ).then(({ set }) => set.decide(principal(), tool('fs-write'), {}, NOW).revision);
    const revision = await approving({});
    expect(revision).toMatch(/^[\w-]{22}$/);
    expect(await approving({ name: 'renamed' })).toBe(revision);
    for (const change of [
      { expression: 'tool.name == "fs-write" && true' },
      { priority: 7 },
      { approval: { message: 'Sure??', rememberSeconds: 60 } },
      { approval: { message: 'Sure?', rememberSeconds: 61 } },
    ])
      expect(await approving(change)).not.toBe(revision);
  });

  it('judges teams by name and id, roles and annotations', async () => {
    const { set } = await compiled(
      policy('"red" in principal.teams && tool.annotations.readOnlyHint == false', 'deny'),
      policy('"t-blue" in principal.teamIds && principal.role == "admin"', 'approve'),
    );
    expect(set.decide(principal(), tool('fs-write'), {}, NOW).effect).toBe('deny');
    expect(set.decide(principal(), tool('fs-read'), {}, NOW).effect).toBe('allow');
    const blueAdmin = principal({ teamIds: ['t-blue'], role: 'admin' });
    expect(set.decide(blueAdmin, tool('fs-write'), {}, NOW).effect).toBe('approve');
    expect(set.decide(principal({ teamIds: ['t-blue'] }), tool('fs-write'), {}, NOW).effect).toBe(
      'allow',
    );
  });

  it('lists a tool whose policies need the arguments, and decides each call by them', async () => {
    const { set } = await compiled(
      policy('tool.name == "fs-write" && args.path.startsWith("/etc")', 'deny', {
        name: 'no-etc',
        priority: 1,
      }),
      policy('tool.name == "fs-write" && args.path.startsWith("/home")', 'approve', {
        priority: 2,
      }),
    );
    const write = tool('fs-write');
    expect(set.listed(principal(), write)).toBe(true);
    expect(set.outcome(principal(), write)).toMatchObject({
      decision: null,
      from: 0,
      dependsOn: { name: 'no-etc' },
    });
    expect(set.decide(principal(), write, { path: '/etc/passwd' }, NOW).effect).toBe('deny');
    expect(set.decide(principal(), write, { path: '/home/ann' }, NOW).effect).toBe('approve');
    expect(set.decide(principal(), write, { path: '/tmp/x' }, NOW).effect).toBe('allow');
    // Missing the argument: the expression fails, which refuses the call (fail closed).
    expect(() => set.decide(principal(), write, {}, NOW)).toThrow(
      "Policy 'no-etc' could not judge this call, so it is refused: no such key: path (line 1, column 33)",
    );
    // Other tools are decided at listing: the first policy is false whatever the arguments.
    expect(set.outcome(principal(), tool('fs-read')).decision).toMatchObject({ effect: 'allow' });
  });

  it('hides a tool only when every call would be denied', async () => {
    const { set: denied } = await compiled(
      policy('args.force == true', 'deny', { priority: 1 }),
      policy('tool.name == "fs-drop"', 'deny', { priority: 2 }),
    );
    expect(denied.listed(principal(), tool('fs-drop'))).toBe(false);
    expect(denied.listed(principal(), tool('fs-read'))).toBe(true);
    const { set: maybe } = await compiled(
      policy('args.force == true', 'allow', { priority: 1 }),
      policy('tool.name == "fs-drop"', 'deny', { priority: 2 }),
    );
    expect(maybe.listed(principal(), tool('fs-drop'))).toBe(true);
    expect(maybe.decide(principal(), tool('fs-drop'), { force: true }, NOW).effect).toBe('allow');
    expect(maybe.decide(principal(), tool('fs-drop'), { force: false }, NOW).effect).toBe('deny');
  });

  it('decides by the time of the call', async () => {
    const { set } = await compiled(
      policy('now.getHours("UTC") >= 18 || now.getHours("UTC") < 6', 'deny'),
    );
    expect(set.listed(principal(), tool('fs-read'))).toBe(true);
    expect(set.decide(principal(), tool('fs-read'), {}, NOW).effect).toBe('allow');
    expect(
      set.decide(principal(), tool('fs-read'), {}, new Date('2026-03-02T22:30:00Z')).effect,
    ).toBe('deny');
    const { set: later } = await compiled(
      policy('now > timestamp("2026-06-01T00:00:00Z")', 'deny'),
    );
    expect(later.decide(principal(), tool('fs-read'), {}, NOW).effect).toBe('allow');
  });

  it('keys principals by the fields the policies read, and the teams they name', async () => {
    const { set: byRole } = await compiled(policy('principal.role == "admin"', 'deny'));
    expect(byRole.keyOf(principal())).toBe(byRole.keyOf(principal({ subject: 'user:bob' })));
    expect(byRole.keyOf(principal())).not.toBe(byRole.keyOf(principal({ role: 'admin' })));
    const { set: byUser } = await compiled(policy('principal.user == "bob"', 'deny'));
    expect(byUser.keyOf(principal())).not.toBe(byUser.keyOf(principal({ userId: 'bob' })));
    const { set: byTeam } = await compiled(policy('"red" in principal.teams', 'deny'));
    expect(byTeam.keyOf(principal({ teamIds: ['t-red', 'x'] }))).toBe(
      byTeam.keyOf(principal({ teamIds: ['y', 't-red'] })),
    );
    expect(byTeam.keyOf(principal({ teamIds: ['t-red'] }))).not.toBe(
      byTeam.keyOf(principal({ teamIds: ['t-blue'] })),
    );
    const { set: anyTeam } = await compiled(
      policy('principal.teams.exists(t, t.startsWith("b"))', 'deny'),
    );
    expect(anyTeam.keyOf(principal({ teamIds: ['x'] }))).not.toBe(
      anyTeam.keyOf(principal({ teamIds: ['y'] })),
    );
    expect(
      anyTeam.decide(principal({ teamIds: ['t-blue'] }), tool('fs-read'), {}, NOW).effect,
    ).toBe('deny');
  });

  it('fails closed when a policy fails: the tool is hidden, its calls refused, and it is reported', async () => {
    const { set, errors } = await compiled(
      policy('tool.annotations.costHint > 3.0', 'deny', { name: 'broken', priority: 1 }),
      policy('tool.name == "fs-read"', 'deny', { name: 'works', priority: 2 }),
    );
    expect(set.listed(principal(), tool('fs-write'))).toBe(false);
    expect(() => set.decide(principal(), tool('fs-write'), {}, NOW)).toThrow(
      "Policy 'broken' could not judge this call, so it is refused: no such key: costHint (line 1, column 18)",
    );
    expect(() => set.decide(principal(), tool('fs-read'), {}, NOW)).toThrow(PolicyEvaluationFailed);
    const hinted = (name: string) =>
      tool(name, { id: `hinted-${name}`, annotations: withStandardAnnotations({ costHint: 1 }) });
    expect(set.decide(principal(), hinted('fs-read'), {}, NOW).policy?.name).toBe('works');
    expect(set.decide(principal(), hinted('fs-write'), {}, NOW).effect).toBe('allow');
    expect(errors).toEqual(['broken@fs-write', 'broken@fs-read']);
    const { set: notBool, errors: notBoolErrors } = await compiled(policy('args.flag', 'deny'));
    expect(() => notBool.decide(principal(), tool('fs-read'), { flag: 'yes' }, NOW)).toThrow(
      'it gave a string, not a bool',
    );
    expect(notBool.decide(principal(), tool('fs-read'), { flag: true }, NOW).effect).toBe('deny');
    expect(notBoolErrors).toHaveLength(1);
  });

  it('refuses arguments with more values than a policy may walk', async () => {
    const { set } = await compiled(policy('args.paths.exists(p, p == "/etc")', 'deny'));
    const many = { paths: Array.from({ length: ARGUMENT_VALUES_LIMIT + 1 }, () => 'x') };
    expect(() => set.decide(principal(), tool('fs-read'), many, NOW)).toThrow(PolicyInputTooLarge);
    expect(set.decide(principal(), tool('fs-read'), { paths: ['/tmp', '/etc'] }, NOW).effect).toBe(
      'deny',
    );
  });

  it('fails closed on any effect: an allow or approve that fails refuses the call too', async () => {
    const { set } = await compiled(
      policy('args.limit > 3.0', 'allow', { name: 'big-ok', priority: 1 }),
      policy('true', 'deny', { name: 'else-no', priority: 2 }),
    );
    expect(set.decide(principal(), tool('fs-read'), { limit: 10 }, NOW).effect).toBe('allow');
    expect(() => set.decide(principal(), tool('fs-read'), { limit: 'ten' }, NOW)).toThrow(
      /^Policy 'big-ok' could not judge this call, so it is refused: no such overload/,
    );
    const { set: asking } = await compiled(policy('args.table.startsWith("x")', 'approve'));
    expect(() => asking.decide(principal(), tool('fs-read'), {}, NOW)).toThrow(
      PolicyEvaluationFailed,
    );
  });

  it('reports a failure by its kind and place, never by a value of the call or the principal', async () => {
    const secret = 'hunter2-SECRET';
    const failures: unknown[] = [];
    const failing = async (expression: string) =>
      PolicySet.compile([policy(expression, 'deny', { name: 'leaky' })], TEAMS, (_, __, error) =>
        failures.push(error),
      );
    const reasonOf = async (
      expression: string,
      args: Record<string, unknown>,
      who = principal(),
    ) => {
      const set = await failing(expression);
      try {
        set.decide(who, tool('fs-read'), args, NOW);
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyEvaluationFailed);
        return (error as Error).message;
      }
      throw new Error(`'${expression}' did not fail`);
    };
    const reasons = [
      await reasonOf('bool(args.password)', { password: secret }),
      await reasonOf('args.password.size() > int(args.password)', { password: secret }),
      await reasonOf('args.m[args.password] == "x"', { m: {}, password: secret }),
      await reasonOf('duration(args.password) > duration("1s")', { password: secret }),
      await reasonOf('matches("x", args.pattern)', { pattern: `(${secret}` }),
      await reasonOf('int(args.n) + 9223372036854775807 > 0', { n: 5 }),
      await reasonOf('bool(principal.name)', {}, principal({ name: secret })),
    ];
    expect(reasons[0]).toBe(
      "Policy 'leaky' could not judge this call, so it is refused: bool conversion error (line 1, column 1)",
    );
    expect(reasons[1]).toContain('int conversion error (line 1, column 24)');
    expect(reasons[2]).toContain('no such key (line 1, column 1)');
    expect(reasons[4]).toContain('invalid pattern');
    expect(reasons[5]).toContain('numeric overflow');
    expect(failures).toHaveLength(reasons.length);
    const told = [
      ...reasons,
      ...failures.map((error) => `${String(error)} ${JSON.stringify(error)}`),
    ];
    for (const text of told) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain('9223372036854775812');
    }
    // A key written in the expression is the author's, and is said.
    expect(await reasonOf('args.path == "x"', {})).toContain('no such key: path');
  });

  it('lists a tool a call-dependent policy may allow before one that fails on it', async () => {
    const { set, errors } = await compiled(
      policy('args.force == true', 'allow', { name: 'forced', priority: 1 }),
      policy('tool.annotations.costHint > 3.0', 'deny', { name: 'broken', priority: 2 }),
    );
    expect(set.listed(principal(), tool('fs-read'))).toBe(true);
    expect(set.decide(principal(), tool('fs-read'), { force: true }, NOW).effect).toBe('allow');
    expect(() => set.decide(principal(), tool('fs-read'), { force: false }, NOW)).toThrow(
      "Policy 'broken' could not judge this call",
    );
    expect(errors).toEqual(['broken@fs-read', 'broken@fs-read']);
  });

  it('reads the standard annotations a tool leaves out as null', async () => {
    const { set, errors } = await compiled(
      policy('tool.annotations.destructiveHint == true', 'approve', { priority: 1 }),
      policy('tool.annotations.readOnlyHint != true', 'deny', { name: 'writes', priority: 2 }),
    );
    const bare = tool('fs-bare', { annotations: withStandardAnnotations(null) });
    expect(set.decide(principal(), bare, {}, NOW).policy?.name).toBe('writes');
    expect(set.decide(principal(), tool('fs-read'), {}, NOW).effect).toBe('allow');
    expect(errors).toEqual([]);
  });

  it('measures only the arguments a policy reads, by values, characters and depth', async () => {
    const { set } = await compiled(
      policy('tool.name == "fs-write" && args.path.startsWith("/etc")', 'deny'),
    );
    const write = tool('fs-write');
    const huge = 'x'.repeat(ARGUMENT_CHARACTERS_LIMIT + 1);
    expect(set.decide(principal(), write, { path: '/tmp/a', content: huge }, NOW).effect).toBe(
      'allow',
    );
    expect(() => set.decide(principal(), write, { path: huge }, NOW)).toThrow(
      `The arguments 'path' hold more than ${ARGUMENT_CHARACTERS_LIMIT} characters; a policy reads at most`,
    );
    let deep: unknown = 'x';
    for (let level = 0; level < 70; level += 1) deep = [deep];
    expect(() => set.decide(principal(), write, { path: deep }, NOW)).toThrow(
      'nest more than 64 levels deep',
    );
    const { set: whole } = await compiled(policy('size(args) > 100', 'deny'));
    expect(() => whole.decide(principal(), write, { path: '/tmp', content: huge }, NOW)).toThrow(
      PolicyInputTooLarge,
    );
    expect(whole.decide(principal(), write, { path: '/tmp' }, NOW).effect).toBe('allow');
  });

  it('closes a scope in the name of a policy that no longer compiles', async () => {
    const set = await PolicySet.closedBy(policy('nonsense(', 'allow', { name: 'stale' }));
    expect(set.decide(principal(), tool('fs-read'), {}, NOW)).toMatchObject({
      effect: 'deny',
      policy: { name: 'stale' },
    });
  });

  it('keeps outcomes for at most VIEW_TOOLS tools, all principal keys together', async () => {
    // A policy that reads the token keys every token apart, and members mint tokens.
    const { set } = await compiled(policy('principal.token == "blocked"', 'deny'));
    const tools = Array.from({ length: 2_000 }, (_, i) => tool(`fs-t${i}`));
    const judge = jest.spyOn(set as unknown as { judgeListing: () => unknown }, 'judgeListing');
    const listAll = (tokenId: string) => {
      for (const each of tools) set.listed(principal({ tokenId }), each);
    };
    listAll('token-0');
    listAll('token-0');
    expect(judge).toHaveBeenCalledTimes(2_000);
    for (let i = 1; i <= VIEW_TOOLS / 2_000; i++) listAll(`token-${i}`);
    judge.mockClear();
    listAll('token-0');
    expect(judge).toHaveBeenCalledTimes(2_000);
  });
});
