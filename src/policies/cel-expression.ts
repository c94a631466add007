import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import { CostRefusal, estimateCost } from './cel-cost';
import { type EvaluationTrace, ExpressionLimitError, MeteredProgram } from './cel-meter';
import { DynamicPatterns, PatternError } from './cel-patterns';

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
    /** True when it compiles but its worst case is past the limits (cel-cost). */
    readonly tooCostly = false,
  ) {
    super(message);
  }
}

/**
 * An evaluation that failed, told by its kind (`int conversion error`, `no such key`) and where in
 * the expression: the library's own text quotes the values it met (`invalid string value
 * "<the password>"`, `No such key: <an argument>`), and this message reaches the audit trail, the
 * logs and the caller. It keeps nothing of the library's error, not even as its cause.
 */
export class EvaluationFailure extends Error {
  constructor(
    /** The library's code (`int_conversion_error`), or `invalid_pattern`, `evaluation_error`. */
    readonly kind: string,
    readonly position: ExpressionPosition | null,
    /** The key or variable the expression names where it failed: the author's text, not a value. */
    written: string | null = null,
  ) {
    const where = position ? ` (line ${position.line}, column ${position.column})` : '';
    super(`${kind.replaceAll('_', ' ')}${written === null ? '' : `: ${written}`}${where}`);
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
  /** The arguments it reads by name (`args.path`); null when it reads `args` whole. */
  readonly argumentFields: ReadonlySet<string> | null;
  /** Its worst-case cost on inputs at the limits, in units (cel-limits), as the save check found. */
  readonly cost: number;
  /**
   * The value, or a throw: an EvaluationFailure (no such key, no such overload, …) or an
   * ExpressionLimitError of the meter, whose messages hold sizes and counts, never values. `trace`
   * learns whether it read `args` or `now` and what it spent.
   */
  evaluate(variables: Record<string, unknown>, trace?: EvaluationTrace): unknown;
}

type Library = typeof Cel;
type AstNode = Cel.ASTNode;

interface Engines {
  library: Library;
  /** Knows every field of `principal` and `tool`: a typo is an error when the policy is saved. */
  check: Cel.Environment;
  /** Evaluates on plain objects, without the typed wrappers' copy on every evaluation. */
  run: Cel.Environment;
  /** Patterns built while evaluating, compiled once. */
  patterns: DynamicPatterns;
}

/** The library is published as ES modules only; this CommonJS build loads it once, on first use. */
let loading: Promise<Engines> | undefined;

function engines(): Promise<Engines> {
  loading ??= import('@marcbachmann/cel-js').then((library) => ({
    library,
    check: environment(library, true),
    run: environment(library, false),
    patterns: new DynamicPatterns(),
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
    .registerFunction('matches(string, string): bool', unmetered(library), { async: false });
}

/**
 * CEL's `matches` on RE2, which runs in time linear in the text, where the library's own
 * `text.matches(pattern)` uses JavaScript's backtracking RegExp (`^(a+)+$` can hold the process
 * for minutes on 30 characters; that form is refused). The meter evaluates it (cel-meter), pricing
 * each match by the pattern's program; this registration only gives the type checker its
 * signature, and refuses to run unmetered.
 */
function unmetered(library: Library): (text: string, pattern: string) => boolean {
  return () => {
    throw new library.EvaluationError('matches: evaluated without the meter');
  };
}

/**
 * Parses, type-checks, analyses and prices a policy expression. It must give a bool (or a value
 * known only at evaluation, `dyn`, which then must be a bool to match), and its worst case on
 * inputs at the limits must fit the budget (cel-cost).
 */
export async function compileExpression(text: string): Promise<CelExpression> {
  if (text.length > EXPRESSION_MAX_LENGTH)
    throw new ExpressionError(
      `The expression is ${text.length} characters long; at most ${EXPRESSION_MAX_LENGTH} are allowed.`,
      null,
    );
  if (text.trim() === '') throw new ExpressionError('The expression is empty.', null);
  const { check, run, patterns } = await engines();
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
  // Typed once here, so that evaluations skip the check and the meter finds the handles it hooks.
  const typed = program.check();
  if (!typed.valid) throw fromLibrary(typed.error, text);
  const { uses, argumentFields } = analyse(program.ast, text);
  let estimate;
  try {
    estimate = estimateCost(program.ast, text);
  } catch (error) {
    if (!(error instanceof CostRefusal)) throw error;
    throw new ExpressionError(error.message, positionOf(text, error.offset), true);
  }
  const metered = new MeteredProgram(program.ast, estimate.patterns, patterns);
  return {
    text,
    uses,
    argumentFields,
    cost: estimate.cost,
    evaluate: (variables, trace) => {
      try {
        return metered.run(() => program(variables), trace);
      } catch (error) {
        throw error instanceof ExpressionLimitError ? error : failureOf(error, text);
      }
    },
  };
}

/** What the library (or a pattern built while evaluating) threw, without the values it quotes. */
function failureOf(error: unknown, text: string): EvaluationFailure {
  if (error instanceof PatternError) return new EvaluationFailure('invalid_pattern', null);
  const found = error as { code?: unknown; range?: { start?: unknown }; node?: unknown };
  const kind =
    typeof found.code === 'string' && /^[a-z][a-z_]{0,63}$/.test(found.code)
      ? found.code
      : 'evaluation_error';
  const offset = found.range?.start;
  return new EvaluationFailure(
    kind,
    typeof offset === 'number' ? positionOf(text, offset) : null,
    kind === 'no_such_key' || kind === 'unknown_variable' ? writtenNameOf(found.node) : null,
  );
}

/**
 * The name a failed node writes in the expression itself (`args.path`, `args["path"]`, a
 * variable), if any; an index computed from a value (`args.m[args.key]`) is not said.
 */
function writtenNameOf(node: unknown): string | null {
  const access = node as AstNode | undefined;
  if (!access || typeof access !== 'object') return null;
  if (access.op === 'id') return access.args;
  if (access.op === '.' || access.op === '.?') return access.args[1];
  if ((access.op === '[]' || access.op === '[?]') && access.args[1].op === 'value') {
    const index = access.args[1].args;
    return typeof index === 'string' ? index : null;
  }
  return null;
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
 * What the expression reads (of the arguments: those it names, unless it reads `args` whole), and
 * the refusals that keep its cost linear in the arguments: no loop inside a loop, no `args`
 * inside a loop's body (loop over `args.list` and use the loop variable), and no backtracking
 * `text.matches(pattern)`. The parser bounds the depth, so the walk is bounded too.
 */
function analyse(
  root: AstNode,
  text: string,
): { uses: ExpressionUses; argumentFields: ReadonlySet<string> | null } {
  const principal = new Set<PrincipalField>();
  const argumentFields = new Set<string>();
  /** The `args` nodes read only for a named field (`args.path`, `args["path"]`). */
  const named = new Set<AstNode>();
  let wholeArguments = false;
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
          if (!named.has(node)) wholeArguments = true;
        } else if (node.args === 'now') now = true;
        break;
      case '.':
      case '.?': {
        const [target, field] = node.args;
        if (target.op === 'id' && target.args === 'principal') {
          if (!isPrincipalField(field)) break;
          principal.add(field);
          if (field === 'teams' || field === 'teamIds') teams = null;
        } else {
          if (target.op === 'id' && target.args === 'args') {
            named.add(target);
            argumentFields.add(field);
          }
          push(target);
        }
        break;
      }
      case '[]':
      case '[?]': {
        const [target, index] = node.args;
        if (
          target.op === 'id' &&
          target.args === 'args' &&
          index.op === 'value' &&
          typeof index.args === 'string'
        ) {
          named.add(target);
          argumentFields.add(index.args);
        }
        push(target);
        push(index);
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
  return {
    uses: { principal, teams, args, now },
    argumentFields: wholeArguments ? null : argumentFields,
  };
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
