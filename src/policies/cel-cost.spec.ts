import { KNOWN_FUNCTIONS } from './cel-cost';
import { compileExpression, ExpressionError } from './cel-expression';
import { COST_LIMIT } from './cel-limits';

async function refusal(expression: string): Promise<ExpressionError> {
  const error = await compileExpression(expression).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ExpressionError);
  return error as ExpressionError;
}

/**
 * `levels` nested `cel.bind`, each doubling the one before, the first `args.s + args.s`; `use`
 * reads the last as `$`: the reported attack with `.split("y")` and 12 levels.
 */
function doubling(levels: number, use: string): string {
  const names = Array.from({ length: levels }, (_, index) => String.fromCharCode(97 + index));
  let expression = use.replaceAll('$', names[levels - 1]!);
  for (let index = levels - 1; index >= 0; index -= 1) {
    const value = index === 0 ? 'args.s + args.s' : `${names[index - 1]} + ${names[index - 1]}`;
    expression = `cel.bind(${names[index]}, ${value}, ${expression})`;
  }
  return expression;
}

/** Every expression of the specs, the e2e suites, the README, the DTO example and the benches. */
const ORDINARY = [
  'true',
  'false',
  'principal.role == "admin"',
  'principal.user == "bob"',
  '"red" in principal.teams',
  '"Red" in principal.teams',
  '"red" in principal.teams && tool.annotations.readOnlyHint == false',
  '"red" in principal.teams && tool.originalName.startsWith("delete")',
  '"t-blue" in principal.teamIds && principal.role == "admin"',
  '"Orange" in principal.teams && tool.originalName == "read_config"',
  '"contractors" in principal.teams && tool.annotations.destructiveHint == true',
  'principal.teams.exists(t, t.startsWith("b"))',
  'principal.teams.exists(t, t.startsWith("eng-"))',
  'has(principal.user) && args.x == 1',
  'tool.name == "fs-drop"',
  'tool.name == "fs-write" && args.path.startsWith("/etc")',
  'tool.name == "fs-write" && args.path.startsWith("/home")',
  'tool.name == "github-list_repos" && !("platform" in principal.teams)',
  'tool.name == "github-delete_repo" && principal.role == "member"',
  'tool.name == "vault-public_info" && args.note.startsWith("secret")',
  'tool.name == "vault-public_info" && args.note == "hello"',
  'tool.name == "vault-public_info" && principal.role != "admin"',
  'tool.originalName == "create_issue" && args.title.contains("urgent")',
  'tool.originalName == "delete_repo" && principal.role == "admin"',
  'tool.originalName == "drop_table"',
  'tool.originalName == "public_info" && args.note == "ask"',
  'tool.originalName == "read_config" && principal.role == "operator"',
  'tool.id == "00000000-0000-4000-8000-000000000001" && "t-1" in principal.teamIds && principal.role == "admin"',
  'tool.annotations.destructiveHint == true',
  'args.flag',
  'args.force == true',
  'args.paths.exists(p, p == "/etc")',
  'has(args.paths) && args.paths.exists(p, p.startsWith("/etc"))',
  'has(args.table) && args.table == "secrets"',
  'matches(args.s, "^(a+)+$")',
  'matches(args.s, args.p)',
  'now.getHours("UTC") < 8',
  'now.getHours("Europe/Berlin") < 8',
  'now.getHours("UTC") >= 18 || now.getHours("UTC") < 6',
  'now > timestamp("2026-06-01T00:00:00Z")',
  'tool.name == "bench-write" && args.path.startsWith("/p19/")',
  'tool.name == "bench-19" && ("team-19" in principal.teams || principal.role == "admin")',
];

describe('the save check of a policy expression', () => {
  it('accepts ordinary policies: every one of the specs, suites, README and benches', async () => {
    for (const expression of ORDINARY) {
      const compiled = await compileExpression(expression);
      expect(compiled.cost).toBeLessThanOrEqual(COST_LIMIT);
    }
  });

  it('refuses the doubling cel.bind chains, saying where and why', async () => {
    const attack = doubling(12, '$.split("y").size() > 0');
    expect(attack).toContain('cel.bind(l, k + k, l.split("y")');
    const refused = await refusal(attack);
    expect(refused.message).toMatch(
      /^`b \+ b` could cost up to [\d,]+ units, more than the 5,000,000/,
    );
    expect(refused.position).toEqual({ offset: 60, line: 1, column: 61 });
    expect((await refusal(doubling(12, 'size($) > 3'))).message).toContain('could cost up to');
    expect((await refusal(doubling(3, '$.contains("z")'))).message).toContain('`b + b`');
    // A literal doubled: fine once, refused when it grows level after level.
    const literal = (levels: number) =>
      `cel.bind(a, "${'x'.repeat(3000)}", ${doubling(levels, 'size($) > 1').replace('args.s + args.s', 'a + a')})`;
    await compileExpression(literal(3));
    expect((await refusal(literal(12))).message).toMatch(
      /^`h \+ h` could build a string of up to 1,536,000 characters; an evaluation may build at most 1,000,000/,
    );
  });

  it('refuses a split of a grown string, and accepts one of an argument', async () => {
    await compileExpression('args.s.split("y").size() > 3');
    const refused = await refusal('cel.bind(a, args.s + args.s, a.split("y").size() > 3)');
    expect(refused.message).toContain('`a.split("y")` could cost up to');
    expect(refused.position?.column).toBe(30);
  });

  it('refuses loops in loops, and loops whose body costs too much for the list', async () => {
    expect((await refusal('args.l.exists(x, [1, 2].exists(y, y == 1))')).message).toContain(
      'cannot be used inside another loop',
    );
    expect((await refusal('args.zones.exists(z, now.getHours(z) > 3)')).message).toContain(
      '`args.zones.exists(z, now.getHours(z) > 3)` could cost up to',
    );
    expect(
      (await refusal('cel.bind(s, args.s, args.l.exists(x, s.contains(x)))')).message,
    ).toContain('could cost up to');
    // A map that collects a whole argument once for each element.
    expect((await refusal('cel.bind(s, args.s, args.l.map(x, s)).size() > 0')).message).toMatch(
      /could (build|cost)/,
    );
  });

  it('refuses literals that grow with each level', async () => {
    let expression = 'g == g';
    for (const [name, from] of [
      ['g', 'f'],
      ['f', 'e'],
      ['e', 'd'],
      ['d', 'c'],
      ['c', 'b'],
      ['b', 'a'],
    ] as const)
      expression = `cel.bind(${name}, [${from}, ${from}], ${expression})`;
    expression = `cel.bind(a, [args.l, args.l], ${expression})`;
    expect((await refusal(expression)).message).toMatch(
      /^`\[c, c\]` could build a list of up to [\d,]+ values and 1,600,000 characters/,
    );
    await compileExpression('size([args.a, args.b, args.c]) == 3');
  });

  it('refuses conversions that explode, and the JSON parse outright', async () => {
    const json = await refusal('bytes(args.s).json().size() > 0');
    expect(json.message).toContain('`bytes.json()` is not available in policies');
    expect((await refusal('dyn(bytes(args.s)).json().size() > 0')).message).toContain('json');
    expect((await refusal('args.s.upperAscii().upperAscii().upperAscii() == ""')).message).toMatch(
      /could (build a string of up to|cost up to)/,
    );
    expect((await refusal('(bytes(args.s) + bytes(args.s)).hex().size() > 0')).message).toMatch(
      /could (build a string of up to|cost up to)/,
    );
    expect((await refusal('args.l.join(args.s) == ""')).message).toMatch(/could (build|cost)/);
    await compileExpression('string(bytes(args.s)) == args.s && dyn(args.n) == 1.0');
  });

  it('compiles the patterns written in it, refusing what does not compile or cannot run', async () => {
    expect((await refusal('matches(tool.name, "(")')).message).toContain('invalid pattern');
    const huge = await refusal(`matches(args.s, "${'.{1000}'.repeat(11)}")`);
    expect(huge.message).toContain('instructions, more than 10000');
    expect(huge.position?.column).toBe(17);
  });

  it('prices every function the library offers, or refuses it', async () => {
    const { Environment } = await import('@marcbachmann/cel-js');
    const offered = new Environment()
      .getDefinitions()
      .functions.map((fn) => fn.name)
      .filter(
        (name) =>
          !name.startsWith('optional') &&
          !['none', 'of', 'value', 'hasValue', 'or', 'orValue'].includes(name),
      );
    expect(offered.length).toBeGreaterThan(40);
    expect(offered.filter((name) => !KNOWN_FUNCTIONS.has(name))).toEqual([]);
  });
});
