import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import { RE2JS } from '@bufbuild/re2';

/** The longest expression a policy may have. */
export const EXPRESSION_MAX_LENGTH = 4096;

/** Parse limits: with the length above, no expression can nest deeper or grow larger. */
const LIMITS = {
  maxAstNodes: 1000,
  maxDepth: 32,
  maxListElements: 1000,
  maxMapEntries: 1000,
  maxCallArguments: 16,
};

/** The longest pattern `matches` compiles, and how many compiled patterns are kept. */
const PATTERN_MAX_LENGTH = 1024;
const PATTERN_CACHE = 256;

/** The macros that loop over a list or map. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

export const PRINCIPAL_FIELDS = [
  'subject',
  'name',
  'user',
  'role',
  'teams',
  'teamIds',
  'token',
  'source',
] as const;
export type PrincipalField = (typeof PRINCIPAL_FIELDS)[number];

/** Where in the expression something went wrong; line and column count from 1. */
export interface ExpressionPosition {
  offset: number;
  line: number;
  column: number;
}

/** An expression that cannot be a policy: it does not parse, type-check, or is refused. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly position: ExpressionPosition | null,
  ) {
    super(message);
  }
}

/** What an expression reads, found once when it is compiled. */
export interface ExpressionUses {
  /** The principal's fields it reads (all of them when it uses `principal` whole). */
  principal: ReadonlySet<PrincipalField>;
  /**
   * When every read of the principal's teams is `"<literal>" in principal.teams` (or `teamIds`):
   * the literals, the only teams that can make two principals differ. Null: any team may.
   */
  teams: { names: ReadonlySet<string>; ids: ReadonlySet<string> } | null;
  args: boolean;
  now: boolean;
}

export interface CelExpression {
  readonly text: string;
  readonly uses: ExpressionUses;
  /** The value, or a throw for an error of evaluation (no such key, no such overload, …). */
  evaluate(variables: Record<string, unknown>): unknown;
}

type Library = typeof Cel;
type AstNode = Cel.ASTNode;

interface Engines {
  library: Library;
  /** Knows every field of `principal` and `tool`: a typo is an error when the policy is saved. */
  check: Cel.Environment;
  /** Evaluates on plain objects, without the typed wrappers' copy on every evaluation. */
  run: Cel.Environment;
}

/** The library is published as ES modules only; this CommonJS build loads it once, on first use. */
let loading: Promise<Engines> | undefined;

function engines(): Promise<Engines> {
  loading ??= import('@marcbachmann/cel-js').then((library) => ({
    library,
    check: environment(library, true),
    run: environment(library, false),
  }));
  return loading;
}

function environment(library: Library, typed: boolean): Cel.Environment {
  const env = new library.Environment({ limits: LIMITS });
  if (typed) {
    env
      .registerVariable({
        name: 'principal',
        schema: {
          subject: 'string',
          name: 'string',
          user: 'string',
          role: 'string',
          teams: 'list<string>',
          teamIds: 'list<string>',
          token: 'string',
          source: 'string',
        },
      })
      .registerVariable({
        name: 'tool',
        schema: {
          id: 'string',
          name: 'string',
          listedName: 'string',
          originalName: 'string',
          gateway: 'string',
          title: 'string',
          annotations: 'map<string, dyn>',
          hash: 'string',
          pinnedHash: 'string',
        },
      });
  } else {
    env
      .registerVariable('principal', 'map<string, dyn>')
      .registerVariable('tool', 'map<string, dyn>');
  }
  return env
    .registerVariable('args', 'map<string, dyn>')
    .registerVariable('now', 'google.protobuf.Timestamp')
    .registerFunction('matches(string, string): bool', safeMatches(library));
}

/**
 * CEL's `matches` on RE2, which runs in time linear in the text. The library's own
 * `text.matches(pattern)` uses JavaScript's backtracking RegExp, where one pattern such as
 * `^(a+)+$` can hold the process for minutes on a 30-character argument; that form is refused.
 */
function safeMatches(library: Library): (text: string, pattern: string) => boolean {
  const compiled = new Map<string, RE2JS>();
  return (text, pattern) => {
    let re = compiled.get(pattern);
    if (!re) {
      if (pattern.length > PATTERN_MAX_LENGTH)
        throw new library.EvaluationError(
          `matches: the pattern is longer than ${PATTERN_MAX_LENGTH} characters`,
        );
      try {
        re = RE2JS.compile(pattern);
      } catch (error) {
        throw new library.EvaluationError(
          `matches: invalid pattern: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (compiled.size >= PATTERN_CACHE) compiled.clear();
      compiled.set(pattern, re);
    }
    return re.test(text);
  };
}

/**
 * Parses, type-checks and analyses a policy expression. It must give a bool (or a value known only
 * at evaluation, `dyn`, which then must be a bool to match).
 */
export async function compileExpression(text: string): Promise<CelExpression> {
  if (text.length > EXPRESSION_MAX_LENGTH)
    throw new ExpressionError(
      `The expression is ${text.length} characters long; at most ${EXPRESSION_MAX_LENGTH} are allowed.`,
      null,
    );
  if (text.trim() === '') throw new ExpressionError('The expression is empty.', null);
  const { check, run } = await engines();
  const checked = check.check(text);
  if (!checked.valid) throw fromLibrary(checked.error, text);
  if (checked.type !== 'bool' && checked.type !== 'dyn')
    throw new ExpressionError(
      `The expression gives ${checked.type ?? 'no value'}; a policy needs a bool.`,
      null,
    );
  let program: Cel.ParseResult;
  try {
    program = run.parse(text);
  } catch (error) {
    throw fromLibrary(error, text);
  }
  const uses = analyse(program.ast, text);
  return { text, uses, evaluate: (variables) => program(variables) as unknown };
}

function fromLibrary(error: unknown, text: string): ExpressionError {
  const found = error as { summary?: string; message?: string; range?: { start: number } };
  const message = found.summary ?? found.message ?? String(error);
  const offset = found.range?.start;
  return new ExpressionError(message, typeof offset === 'number' ? positionOf(text, offset) : null);
}

export function positionOf(text: string, offset: number): ExpressionPosition {
  const before = text.slice(0, offset).split('\n');
  return { offset, line: before.length, column: before[before.length - 1]!.length + 1 };
}

/**
 * What the expression reads, and the refusals that keep its cost linear in the arguments: no loop
 * inside a loop, no `args` inside a loop's body (loop over `args.list` and use the loop
 * variable), and no backtracking `text.matches(pattern)`. The parser bounds the depth, so the
 * walk is bounded too.
 */
function analyse(root: AstNode, text: string): ExpressionUses {
  const principal = new Set<PrincipalField>();
  let teams: { names: Set<string>; ids: Set<string> } | null = {
    names: new Set(),
    ids: new Set(),
  };
  let args = false;
  let now = false;
  const refuse = (node: AstNode, message: string): never => {
    throw new ExpressionError(message, positionOf(text, node.start));
  };
  const stack: { node: AstNode; inLoop: boolean }[] = [{ node: root, inLoop: false }];
  while (stack.length > 0) {
    const { node, inLoop } = stack.pop()!;
    const push = (child: AstNode, loop = inLoop) => stack.push({ node: child, inLoop: loop });
    switch (node.op) {
      case 'value':
        break;
      case 'id':
        if (node.args === 'principal') {
          for (const field of PRINCIPAL_FIELDS) principal.add(field);
          teams = null;
        } else if (node.args === 'args') {
          if (inLoop)
            refuse(
              node,
              '`args` cannot be read inside all/exists/exists_one/map/filter: loop over the argument (`args.paths.exists(p, …)`) and use the loop variable.',
            );
          args = true;
        } else if (node.args === 'now') now = true;
        break;
      case '.':
      case '.?': {
        const [target, field] = node.args;
        if (target.op === 'id' && target.args === 'principal') {
          if (!isPrincipalField(field)) break;
          principal.add(field);
          if (field === 'teams' || field === 'teamIds') teams = null;
        } else push(target);
        break;
      }
      case 'in': {
        const [needle, list] = node.args;
        const teamList = teamListOf(list);
        if (teamList && needle.op === 'value' && typeof needle.args === 'string') {
          principal.add(teamList);
          teams?.[teamList === 'teams' ? 'names' : 'ids'].add(needle.args);
        } else {
          push(needle);
          push(list);
        }
        break;
      }
      case 'call':
        for (const argument of node.args[1]) push(argument);
        break;
      case 'rcall': {
        const [name, receiver, callArgs] = node.args;
        if (name === 'matches')
          refuse(
            node,
            '`text.matches(pattern)` is not available (its engine can backtrack for minutes); write `matches(text, pattern)`, which runs on RE2.',
          );
        push(receiver);
        if (COMPREHENSIONS.has(name)) {
          if (inLoop) refuse(node, `\`${name}\` cannot be used inside another loop.`);
          for (const argument of callArgs) push(argument, true);
        } else for (const argument of callArgs) push(argument);
        break;
      }
      case 'list':
        for (const element of node.args) push(element);
        break;
      case 'map':
        for (const [key, value] of node.args) {
          push(key);
          push(value);
        }
        break;
      case '!_':
      case '-_':
        push(node.args);
        break;
      case '?:':
      case '||':
      case '&&':
      case '[]':
      case '[?]':
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
        for (const operand of node.args) push(operand);
        break;
    }
  }
  return { principal, teams, args, now };
}

function isPrincipalField(field: string): field is PrincipalField {
  return (PRINCIPAL_FIELDS as readonly string[]).includes(field);
}

function teamListOf(node: AstNode): 'teams' | 'teamIds' | null {
  if (node.op !== '.') return null;
  const [target, field] = node.args;
  if (target.op !== 'id' || target.args !== 'principal') return null;
  return field === 'teams' || field === 'teamIds' ? field : null;
}
