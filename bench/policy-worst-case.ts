import { compileExpression, type CelExpression } from '../src/policies/cel-expression';
import {
  ARGUMENT_CHARACTERS_LIMIT,
  ARGUMENT_VALUES_LIMIT,
  MATCH_COST_LIMIT,
} from '../src/policies/cel-limits';
import { literalPattern, matchCost } from '../src/policies/cel-patterns';
import { measure } from '../src/policies/policy-input';

// `node -r ts-node/register/transpile-only bench/policy-worst-case.ts`: the longest one policy
// evaluation can take. For each way an expression can cost (a loop over the largest list, binds
// that double, a split, scans, case changes, a regex, time zones), the largest expression the save
// check accepts, found by growing it until refused, is evaluated on the largest arguments a
// policy may read, built to be that expression's worst input.

const ROUNDS = Number(process.env.ROUNDS ?? 200);

/** A way to make an expression costly: the expression at size `n`, and its worst arguments. */
interface Family {
  name: string;
  expression: (n: number) => string;
  args: Record<string, unknown>;
}

/** The longest string a policy may read in one argument (its one-character key included). */
const LONGEST = ARGUMENT_CHARACTERS_LIMIT - 1;
const list = Array.from({ length: ARGUMENT_VALUES_LIMIT - 1 }, (_, index) => `p${index}`);
const repeat = (n: number, term: (index: number) => string, joiner: string) =>
  Array.from({ length: n }, (_, index) => term(index)).join(joiner);
/** The longest text a match with this pattern may read, all of it matching. */
const regexText = (pattern: string) =>
  'a'.repeat(Math.floor(MATCH_COST_LIMIT / matchCost(1, literalPattern(pattern).instructions)));

const FAMILIES: Family[] = [
  {
    name: 'a loop over the largest list, its body as large as accepted',
    expression: (n) =>
      `args.l.all(p, ${repeat(n, (index) => `!p.startsWith("/etc/${index}")`, ' && ')})`,
    args: { l: list },
  },
  {
    name: 'binds that double the largest string, as deep as accepted',
    expression: (n) => {
      let body = `v${n - 1}.contains("z")`;
      for (let level = n - 1; level >= 0; level -= 1)
        body = `cel.bind(v${level}, ${level === 0 ? 'args.s + args.s' : `v${level - 1} + v${level - 1}`}, ${body})`;
      return body;
    },
    args: { s: 'y'.repeat(LONGEST) },
  },
  {
    name: 'splits of the largest string into one piece a character',
    expression: (n) => repeat(n, () => 'args.s.split("y").size() == 3', ' || '),
    args: { s: 'y'.repeat(LONGEST) },
  },
  {
    name: 'searches of the largest string, at their worst (a near miss everywhere)',
    expression: (n) =>
      repeat(n, (index) => `args.s.contains("${'a'.repeat(30 + index)}b")`, ' || '),
    args: { s: 'a'.repeat(LONGEST) },
  },
  {
    name: 'counts of the largest string',
    expression: (n) => repeat(n, (index) => `size(args.s) == ${index}`, ' || '),
    args: { s: '\u{1F600}'.repeat(LONGEST / 2) },
  },
  {
    name: 'case changes of the largest string (İ, which lowers to two)',
    expression: (n) => repeat(n, () => 'args.s.lowerAscii() == ""', ' || '),
    args: { s: 'İ'.repeat(LONGEST) },
  },
  {
    name: 'a match of the costliest accepted program on the longest text it may read',
    expression: () => 'matches(args.s, "^(a|aa){40}$")',
    args: { s: regexText('^(a|aa){40}$') },
  },
  {
    name: 'time-zone conversions',
    expression: (n) => repeat(n, (index) => `now.getHours("Europe/Berlin") == ${index}`, ' || '),
    args: {},
  },
  {
    name: 'comparisons of the two largest lists, equal to the last element',
    expression: (n) => repeat(n, () => 'args.a == args.b', ' || '),
    args: { a: list.slice(0, 4_999), b: [...list.slice(0, 4_999)] },
  },
  {
    name: 'membership in the largest list',
    expression: (n) => repeat(n, (index) => `"q${index}" in args.l`, ' || '),
    args: { l: list },
  },
];

/** The largest `n` (up to 64) whose expression the save check accepts, compiled. */
async function largestAccepted(family: Family): Promise<{ n: number; cel: CelExpression }> {
  let best: { n: number; cel: CelExpression } | null = null;
  for (let n = 1; n <= 64; n += 1) {
    const cel = await compileExpression(family.expression(n)).catch(() => null);
    if (!cel) break;
    best = { n, cel };
  }
  if (!best) throw new Error(`${family.name}: not even the smallest is accepted`);
  return best;
}

export interface WorstCase {
  family: string;
  n: number;
  estimate: number;
  maxMs: number;
  p99Ms: number;
}

export interface PolicyWorstCaseResult {
  rounds: number;
  families: WorstCase[];
  maxMs: number;
  p99Ms: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function policyWorstCase(): Promise<PolicyWorstCaseResult> {
  const families: WorstCase[] = [];
  const all: number[] = [];
  for (const family of FAMILIES) {
    for (const [field, value] of Object.entries(family.args)) {
      const size = measure(value);
      if (
        size.values > ARGUMENT_VALUES_LIMIT ||
        size.chars + field.length > ARGUMENT_CHARACTERS_LIMIT
      )
        throw new Error(`${family.name}: argument '${field}' is larger than a policy may read`);
    }
    const { n, cel } = await largestAccepted(family);
    const variables = { args: family.args, now: new Date(), principal: {}, tool: {} };
    for (let warm = 0; warm < 5; warm += 1) cel.evaluate(variables);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = process.hrtime.bigint();
      cel.evaluate(variables);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    all.push(...times);
    times.sort((a, b) => a - b);
    families.push({
      family: family.name,
      n,
      estimate: cel.cost,
      maxMs: times[times.length - 1]!,
      p99Ms: percentile(times, 99),
    });
  }
  all.sort((a, b) => a - b);
  return { rounds: ROUNDS, families, maxMs: all[all.length - 1]!, p99Ms: percentile(all, 99) };
}

if (require.main === module)
  policyWorstCase().then(
    (result) => {
      console.log(`Worst-case policy evaluations, ${result.rounds} rounds each:`);
      for (const row of result.families)
        console.log(
          `  ${row.maxMs.toFixed(2).padStart(6)} ms max, ${row.p99Ms.toFixed(2).padStart(6)} ms p99  (${row.n}, estimate ${row.estimate.toLocaleString('en-US')} units)  ${row.family}`,
        );
      console.log(
        `  overall: ${result.maxMs.toFixed(2)} ms max, ${result.p99Ms.toFixed(2)} ms p99`,
      );
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
