import { compileExpression } from './cel-expression';
import {
  ARGUMENT_CHARACTERS_LIMIT,
  ARGUMENT_VALUES_LIMIT,
  COST_LIMIT,
  LIST_LIMIT,
  STRING_LIMIT,
} from './cel-limits';
import { type EvaluationTrace, ExpressionLimitError } from './cel-meter';

const trace = (): EvaluationTrace => ({ readCall: false, spent: 0 });
const text = (length: number, unit = 'y') => unit.repeat(length);
const items = (count: number) => Array.from({ length: count }, (_, index) => `p${index}`);

/**
 * The meter on its own: each expression passes the save check, and is evaluated here on inputs
 * past the argument limits (as a tool's annotations may be, or arguments if their check were
 * gone), where only the meter stands between it and a value V8 cannot build.
 */
async function stopped(expression: string, args: Record<string, unknown>): Promise<string> {
  const compiled = await compileExpression(expression);
  let caught: unknown;
  try {
    compiled.evaluate({ args });
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ExpressionLimitError);
  return (caught as Error).message;
}

describe('the run-time meter', () => {
  it('checks a concatenation of strings and of lists before it is built', async () => {
    expect(await stopped('args.s + args.s == "x"', { s: text(600_000) })).toBe(
      `\`+\` would build a string of 1200000 characters; at most ${STRING_LIMIT} are allowed`,
    );
    expect(await stopped('args.l + args.l == ["x"]', { l: items(600_000) })).toContain(
      `a list \`+\` would build 1200000 elements; at most ${LIST_LIMIT} are allowed`,
    );
  });

  it('counts the pieces of a split, and the length of a join, before making them', async () => {
    expect(await stopped('args.s.split("").size() > 0', { s: text(LIST_LIMIT + 5) })).toContain(
      '`split` would build',
    );
    expect(await stopped('args.l.join() == ""', { l: [text(600_000), text(600_000)] })).toContain(
      '`join` would build a string of 1200000 characters',
    );
  });

  it('prices a loop before its first run: map, filter, exists and loops over maps', async () => {
    const many = { l: items(LIST_LIMIT + 1) };
    expect(await stopped('args.l.map(x, x).size() > 0', many)).toContain('a loop would run');
    expect(await stopped('args.l.filter(x, x == "a").size() > 0', many)).toContain(
      'a loop would run',
    );
    const budget = await stopped('args.l.exists(x, x == "z")', { l: items(200_000) });
    expect(budget).toContain(`a loop of 200000 runs would take the evaluation past its budget`);
    const keys = Object.fromEntries(items(200_000).map((key) => [key, 1]));
    expect(await stopped('args.m.exists(k, k == "z")', { m: keys })).toContain('past its budget');
  });

  it('stops nested binds that grow, however they are written', async () => {
    const expression = 'cel.bind(a, args.s + args.s, cel.bind(b, a + a, b == "z"))';
    await compileExpression(expression);
    expect(await stopped(expression, { s: text(300_000) })).toContain('would build a string');
  });

  it('walks large literals and values only as far as the budget, to compare them', async () => {
    const big = { a: items(300_000), b: items(300_000) };
    expect(await stopped('[args.a, args.a] == [args.b, args.b]', big)).toContain(
      'would take the evaluation past its budget',
    );
    expect(await stopped('"x" in args.a', { a: items(600_000) })).toContain('`in`');
  });

  it('checks what a conversion makes before it converts', async () => {
    expect(await stopped('size(bytes(args.s)) > 0', { s: text(400_000) })).toContain(
      '`bytes` would build a string of 1200000 characters',
    );
    expect(await stopped('dyn(args.s).upperAscii() == ""', { s: text(400_000, 'ß') })).toContain(
      '`upperAscii` would build',
    );
    expect(await stopped('bytes(args.s).hex() == ""', { s: text(300_000) })).toMatch(
      /`(bytes|hex)` would (build|take)/,
    );
  });

  it('prices each match by its program, refuses costly patterns built while evaluating', async () => {
    expect(await stopped('matches(args.s, "(a?){100}a{100}$")', { s: text(1_000, 'a') })).toMatch(
      /^matches: a text of 1000 characters against a pattern of \d+ instructions could cost/,
    );
    expect(await stopped('matches(args.s, args.p)', { s: 'a', p: 'a{1000}' })).toContain(
      'may not use a counted repetition',
    );
    expect(await stopped('matches(args.s, args.p)', { s: 'a', p: text(65, 'a') })).toContain(
      'at most 64 characters',
    );
    const dynamic = await compileExpression('matches(args.s, args.p)');
    expect(dynamic.evaluate({ args: { s: 'abc', p: '^a.c$' } })).toBe(true);
  });

  it('refuses a duration too long to parse before parsing it', async () => {
    expect(
      await stopped('duration(args.d) > duration("1h")', { d: `${text(3_000, '1')}s` }),
    ).toContain('duration() parses at most 64 characters');
  });

  it('fails an evaluation that met a limit, even where || would absorb an error', async () => {
    const message = await stopped('args.s + args.s == "x" || true', { s: text(600_000) });
    expect(message).toContain('would build a string');
  });

  it('tells whether an evaluation read the call, and stays within the save check’s estimate', async () => {
    const listing = await compileExpression('tool.name == "x" || args.path.startsWith("/etc")');
    const seen = trace();
    expect(() => listing.evaluate({ tool: { name: 'y' } }, seen)).toThrow('args');
    expect(seen.readCall).toBe(true);
    const paths = items(ARGUMENT_VALUES_LIMIT - 1);
    const longest = text(ARGUMENT_CHARACTERS_LIMIT - 1);
    const cases: [string, Record<string, unknown>][] = [
      ['args.paths.exists(p, p.startsWith("/etc"))', { paths }],
      ['args.paths.filter(p, p.contains("9")).size() > 0', { paths }],
      ['"/etc" in args.paths', { paths }],
      ['size(args.s) > 10', { s: longest }],
      ['args.s.split("y").size() > 3', { s: longest }],
      ['args.s.lowerAscii() == "a"', { s: text(ARGUMENT_CHARACTERS_LIMIT - 1, 'İ') }],
      ['cel.bind(a, args.s + args.s, a.contains("z"))', { s: longest }],
      ['args.paths.join(",").size() > 0', { paths: items(8_000) }],
      ['args.m.exists(k, k.startsWith("a"))', { m: Object.fromEntries(paths.map((p) => [p, 1])) }],
      ['matches(args.s, "^(a+)+$")', { s: text(5_000, 'a') }],
      ['now.getHours("UTC") >= 18 || now.getHours("UTC") < 6', {}],
    ];
    for (const [expression, args] of cases) {
      const compiled = await compileExpression(expression);
      const spent = trace();
      compiled.evaluate({ args, now: new Date() }, spent);
      expect([expression, spent.spent <= compiled.cost]).toEqual([expression, true]);
      expect(spent.spent).toBeLessThanOrEqual(COST_LIMIT);
    }
  });
});
