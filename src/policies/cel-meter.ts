import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import {
  COST_LIMIT,
  DURATION_TEXT_LIMIT,
  LIST_LIMIT,
  MATCH_COST_LIMIT,
  STRING_LIMIT,
  UNIT,
  TIME_ZONE_GETTERS,
} from './cel-limits';
import { DynamicPatterns, matchCost, matchRefusal, type Pattern } from './cel-patterns';

/**
 * An evaluation stopped by a limit: a value too large to build, an operation too costly, or the
 * evaluation past its budget. Unlike the library's errors, CEL's `||`, `&&` and loops cannot
 * absorb it: once a limit stops an evaluation, the evaluation has failed.
 */
export class ExpressionLimitError extends Error {}

/** What one evaluation did: whether it read `args` or `now`, and the units it spent. */
export interface EvaluationTrace {
  readCall: boolean;
  spent: number;
}

type Evaluate = (evaluator: unknown, node: unknown, context: unknown) => unknown;
type Handle = (...operands: unknown[]) => unknown;

/**
 * The parts of a cel-js 8.0.0 AST node (lib/parser.js, lib/operators.js, lib/macros.js) the meter
 * hooks: each node's `meta.evaluate`, and the `handle` its type check chose, which receives the
 * operands before the operation builds anything. The version is pinned; the meter's spec fails
 * if a hook stops being called.
 */
interface Hooked {
  op: string;
  args: unknown;
  meta: { evaluate?: Evaluate; alternate?: Hooked; macro?: Macro };
  handle?: Handle;
}

interface Macro {
  evaluate: Evaluate;
  val?: Hooked;
  exp?: Hooked;
  macroHasProps?: Hooked[];
}

interface Comprehension {
  iterable: Hooked;
  init: Hooked;
  step: Hooked;
}

/** One evaluation's account. */
class Meter {
  spent = 0;
  readCall = false;
  failure: ExpressionLimitError | null = null;

  charge(units: number, what: string): void {
    if (this.failure) throw this.failure;
    this.spent += units;
    if (this.spent > COST_LIMIT)
      this.fail(`${what} would take the evaluation past its budget of ${COST_LIMIT} units`);
  }

  /** What is left of the budget: walks that price a value stop there. */
  get left(): number {
    return COST_LIMIT - this.spent;
  }

  string(length: number, what: string): void {
    if (length > STRING_LIMIT)
      this.fail(
        `${what} would build a string of ${length} characters; at most ${STRING_LIMIT} are allowed`,
      );
  }

  list(length: number, what: string): void {
    if (length > LIST_LIMIT)
      this.fail(`${what} would build ${length} elements; at most ${LIST_LIMIT} are allowed`);
  }

  fail(message: string): never {
    this.failure = new ExpressionLimitError(message);
    throw this.failure;
  }
}

/**
 * An expression's AST with the meter hooked in. Nodes are charged before they run: those outside
 * loops once per evaluation, a loop's body once per element before the loop starts (loops do not
 * nest). Every operation that could build a large value or take long is priced, and checked
 * against the limits, before it runs.
 */
export class MeteredProgram {
  private meter: Meter | null = null;
  /** The nodes evaluated once, outside loops, as the save check counts them. */
  private readonly once: number;
  /** The nodes each run of a loop costs, by the loop's comprehension node. */
  private readonly perRun = new Map<Hooked, number>();

  constructor(
    root: Cel.ASTNode,
    private readonly literals: ReadonlyMap<string, Pattern>,
    private readonly dynamic: DynamicPatterns,
  ) {
    this.once = this.count(root as unknown as Hooked);
    const seen = new Set<Hooked>();
    const pending: Hooked[] = [root as unknown as Hooked];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      this.hook(node);
      pending.push(...childrenOf(node));
    }
  }

  /** Runs one evaluation under a fresh meter; a limit it met fails it, whatever it returned. */
  run(evaluate: () => unknown, trace?: EvaluationTrace): unknown {
    const meter = new Meter();
    this.meter = meter;
    try {
      meter.charge(this.once * UNIT.node, 'the expression');
      const value = evaluate();
      if (meter.failure) throw meter.failure;
      return value;
    } catch (error) {
      throw meter.failure ?? error;
    } finally {
      this.meter = null;
      if (trace) {
        trace.readCall = meter.readCall;
        trace.spent = meter.spent;
      }
    }
  }

  private get current(): Meter {
    if (!this.meter) throw new ExpressionLimitError('an expression was evaluated without a meter');
    return this.meter;
  }

  /**
   * The nodes of the written expression outside loop bodies, and for each loop the nodes of one
   * run: the same count the save check makes (cel-cost), so that a meter never charges more.
   */
  private count(root: Hooked): number {
    let once = 0;
    const pending: Hooked[] = [root];
    while (pending.length > 0) {
      const node = pending.pop()!;
      once += 1;
      if (node.op === 'rcall') {
        const [name, receiver, operands] = node.args as [string, Hooked, Hooked[]];
        const loop = node.meta.alternate;
        if (LOOPS.has(name) && loop?.op === 'comprehension') {
          once += UNIT.loopNodes;
          pending.push(receiver);
          let body = UNIT.iterationNodes;
          const inBody = operands.slice(1);
          while (inBody.length > 0) {
            body += 1;
            inBody.push(...writtenChildren(inBody.pop()!));
          }
          this.perRun.set(loop, body);
          continue;
        }
      }
      pending.push(...writtenChildren(node));
    }
    return once;
  }

  private hook(node: Hooked): void {
    const { meta } = node;
    if (meta.alternate || meta.macro) return;
    if (node.op === 'id' && (node.args === 'args' || node.args === 'now') && meta.evaluate) {
      const evaluate = meta.evaluate;
      meta.evaluate = (evaluator, self, context) => {
        this.current.readCall = true;
        return evaluate(evaluator, self, context);
      };
    }
    const handle = node.handle;
    if (!handle) return;
    switch (node.op) {
      case '+':
        node.handle = (left, right, ...rest) => {
          this.concatenation(left, right);
          return handle(left, right, ...rest);
        };
        break;
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        node.handle = (left, right, ...rest) => {
          const meter = this.current;
          meter.charge(comparisonCost(left, right, meter.left), `\`${node.op}\``);
          return handle(left, right, ...rest);
        };
        break;
      case 'in':
        node.handle = (needle, haystack, ...rest) => {
          const meter = this.current;
          if (Array.isArray(haystack))
            meter.charge(membershipCost(needle, haystack, meter.left), '`in`');
          return handle(needle, haystack, ...rest);
        };
        break;
      case 'comprehension': {
        const perRun = this.perRun.get(node) ?? 0;
        node.handle = (items, ...rest) => {
          this.loop(items, perRun);
          return handle(items, ...rest);
        };
        break;
      }
      case 'call':
      case 'rcall': {
        const name = (node.args as [string])[0];
        if (node.op === 'call' && name === 'matches') {
          node.handle = (operands, ...rest) => {
            const [subject, pattern] = operands as unknown[];
            if (typeof subject !== 'string' || typeof pattern !== 'string')
              return handle(operands, ...rest);
            return this.match(subject, pattern);
          };
          break;
        }
        node.handle = (operands, ...rest) => {
          priceCall(this.current, name, operands as unknown[]);
          return handle(operands, ...rest);
        };
        break;
      }
    }
  }

  /** A loop about to run: at most LIST_LIMIT runs, each run's nodes charged before the first. */
  private loop(items: unknown, perRun: number): void {
    const meter = this.current;
    let runs = 0;
    if (Array.isArray(items)) runs = items.length;
    else if (items instanceof Map || items instanceof Set) runs = items.size;
    else if (typeof items === 'object' && items !== null) {
      runs = keyCount(items, LIST_LIMIT + 1);
      meter.charge(runs * UNIT.key, 'a loop over a map');
    }
    if (runs > LIST_LIMIT)
      meter.fail(`a loop would run ${runs} times; at most ${LIST_LIMIT} are allowed`);
    meter.charge(runs * perRun * UNIT.node, `a loop of ${runs} runs`);
  }

  private concatenation(left: unknown, right: unknown): void {
    const meter = this.current;
    if (Array.isArray(left) && Array.isArray(right)) {
      const length = left.length + right.length;
      meter.list(length, 'a list `+`');
      meter.charge(length * UNIT.element, 'a list `+`');
    } else if (
      (typeof left === 'string' && typeof right === 'string') ||
      (left instanceof Uint8Array && right instanceof Uint8Array)
    ) {
      const length = left.length + right.length;
      meter.string(length, '`+`');
      meter.charge(length * UNIT.copy, '`+`');
    }
  }

  /** `matches(text, pattern)` on RE2, priced by the pattern's program before it runs. */
  private match(subject: string, pattern: string): boolean {
    const meter = this.current;
    let compiled = this.literals.get(pattern) ?? this.dynamic.cached(pattern);
    if (!compiled) {
      const refusal = DynamicPatterns.refusal(pattern);
      if (refusal) meter.fail(`matches: ${refusal}`);
      meter.charge(DynamicPatterns.compileCost(pattern), 'compiling the pattern');
      compiled = this.dynamic.compile(pattern);
    }
    const refusal = matchRefusal(subject.length, compiled);
    if (refusal) meter.fail(refusal);
    meter.charge(
      Math.min(matchCost(subject.length, compiled.instructions), MATCH_COST_LIMIT),
      '`matches`',
    );
    return compiled.re.test(subject);
  }
}

/** The loop macros. */
const LOOPS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** The nodes under a node as written (its macro's expansion aside). */
function writtenChildren(node: Hooked): Hooked[] {
  return childrenOf({ ...node, meta: {} });
}

/** The nodes under a node, including those its macro expanded to. */
function childrenOf(node: Hooked): Hooked[] {
  const { meta } = node;
  const children: Hooked[] = [];
  if (meta.alternate) children.push(meta.alternate);
  if (meta.macro) {
    const { val, exp, macroHasProps } = meta.macro;
    for (const child of [val, exp, ...(macroHasProps ?? [])]) if (child) children.push(child);
  }
  const args = node.args;
  switch (node.op) {
    case 'value':
    case 'id':
    case 'accuValue':
    case 'accuInc':
      break;
    case 'accuPush':
    case '!_':
    case '-_':
      children.push(args as Hooked);
      break;
    case '.':
    case '.?':
      children.push((args as [Hooked])[0]);
      break;
    case 'call':
      children.push(...(args as [string, Hooked[]])[1]);
      break;
    case 'rcall': {
      const [, receiver, operands] = args as [string, Hooked, Hooked[]];
      children.push(receiver, ...operands);
      break;
    }
    case 'map':
      for (const [key, value] of args as [Hooked, Hooked][]) children.push(key, value);
      break;
    case 'comprehension': {
      const { iterable, init, step } = args as Comprehension;
      children.push(iterable, init, step);
      break;
    }
    default:
      children.push(...(args as Hooked[]));
  }
  return children;
}

/**
 * Prices a function call from its operands (the receiver first), and checks what it would build,
 * before it runs: the same prices the save check uses (cel-cost), on the actual sizes.
 */
function priceCall(meter: Meter, name: string, operands: unknown[]): void {
  const [first, second] = operands;
  const length = lengthOf(first);
  const what = `\`${name}\``;
  switch (name) {
    case 'size':
      if (typeof first === 'string') meter.charge(length * UNIT.count, what);
      else if (isPlainObject(first))
        meter.charge(keyCount(first, meter.left / UNIT.key + 1) * UNIT.key, what);
      break;
    case 'contains':
    case 'indexOf':
    case 'lastIndexOf':
      meter.charge((length + lengthOf(second)) * UNIT.scan, what);
      break;
    case 'startsWith':
    case 'endsWith':
      meter.charge(lengthOf(second) * UNIT.scan, what);
      break;
    case 'lowerAscii':
    case 'upperAscii':
      meter.string(length * 3, what);
      meter.charge(length * UNIT.caseChange, what);
      break;
    case 'trim':
    case 'substring':
      meter.charge(length * UNIT.copy, what);
      break;
    case 'split':
      if (typeof first === 'string' && typeof second === 'string') {
        // A text can make no more pieces than its length and one: count only a longer one's.
        const pieces = length < LIST_LIMIT ? length + 1 : piecesOf(first, second, LIST_LIMIT + 1);
        meter.list(pieces, what);
        meter.charge(
          length * (UNIT.scan + (operands.length > 2 ? UNIT.copy : 0)) + pieces * UNIT.piece,
          what,
        );
      }
      break;
    case 'join':
      if (Array.isArray(first)) {
        const joined = joinedLength(first, typeof second === 'string' ? second : '');
        meter.string(joined, what);
        meter.charge(joined * UNIT.copy + first.length * UNIT.element, what);
      }
      break;
    case 'bytes':
      meter.string(length * 3, what);
      meter.charge(length * 3 * UNIT.copy, what);
      break;
    case 'string':
      meter.string(length, what);
      meter.charge((length + 32) * UNIT.copy, what);
      break;
    case 'hex':
      meter.string(length * 2, what);
      meter.charge(length * 2 * UNIT.copy, what);
      break;
    case 'base64': {
      const encoded = Math.ceil(length / 3) * 4;
      meter.string(encoded, what);
      meter.charge(encoded * UNIT.copy, what);
      break;
    }
    case 'json':
      meter.fail('`bytes.json()` is not available in policies');
      break;
    case 'bool':
    case 'int':
    case 'uint':
    case 'double':
      meter.charge(length * UNIT.copy, what);
      break;
    case 'timestamp':
      meter.charge(UNIT.timestamp, what);
      break;
    case 'duration':
      if (length > DURATION_TEXT_LIMIT)
        meter.fail(
          `duration() parses at most ${DURATION_TEXT_LIMIT} characters; this text has ${length}`,
        );
      meter.charge(UNIT.duration, what);
      break;
    default:
      if (TIME_ZONE_GETTERS.has(name) && operands.length > 1)
        meter.charge(UNIT.zone + lengthOf(second) * UNIT.scan, what);
  }
}

/**
 * What `needle in list` costs: each element compared, a scalar needle against an element at most
 * the element's characters (no walk: a scalar never equals a list or map), any other as far as
 * both go.
 */
function membershipCost(needle: unknown, list: unknown[], cap: number): number {
  if (typeof needle === 'object' && needle !== null && !(needle instanceof Uint8Array)) {
    const walked = weightOf(list, cap);
    const needleChars = weightOf(needle, cap).chars;
    return (
      walked.values * UNIT.element +
      Math.min(needleChars * walked.values, walked.chars) * UNIT.compare
    );
  }
  const needleChars = lengthOf(needle);
  let compared = 0;
  for (const item of list) compared += Math.min(needleChars, lengthOf(item));
  return list.length * UNIT.element + compared * UNIT.compare;
}

function comparisonCost(left: unknown, right: unknown, cap: number): number {
  if (typeof left === 'string' && typeof right === 'string')
    return Math.min(left.length, right.length) * UNIT.compare;
  if (left instanceof Uint8Array && right instanceof Uint8Array)
    return Math.min(left.length, right.length) * UNIT.compare;
  if (typeof left !== 'object' || left === null || typeof right !== 'object' || right === null)
    return 0;
  const a = weightOf(left, cap);
  const b = weightOf(right, cap);
  return Math.min(a.values, b.values) * UNIT.element + Math.min(a.chars, b.chars) * UNIT.compare;
}

function lengthOf(value: unknown): number {
  return typeof value === 'string' || value instanceof Uint8Array ? value.length : 0;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A plain object's own keys, counted up to `cap`. */
function keyCount(value: object, cap: number): number {
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    count += 1;
    if (count >= cap) break;
  }
  return count;
}

/** How many pieces `text.split(separator)` makes, counted up to `cap`. */
function piecesOf(text: string, separator: string, cap: number): number {
  if (separator === '') return text.length;
  let pieces = 1;
  for (let at = text.indexOf(separator); at >= 0 && pieces < cap;) {
    pieces += 1;
    at = text.indexOf(separator, at + separator.length);
  }
  return pieces;
}

function joinedLength(items: unknown[], separator: string): number {
  let length = items.length > 0 ? (items.length - 1) * separator.length : 0;
  for (const item of items) length += lengthOf(item);
  return length;
}

/**
 * The values and characters of a value (as the save check counts them), walked without recursion.
 * A walk that would cost more than `cap` units to compare stops, and counts as infinite.
 */
function weightOf(value: unknown, cap: number): { values: number; chars: number } {
  let values = 0;
  let chars = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    if (values * UNIT.element + chars * UNIT.compare > cap)
      return { values: Infinity, chars: Infinity };
    const next = pending.pop();
    values += 1;
    if (typeof next === 'string' || next instanceof Uint8Array) chars += next.length;
    else if (Array.isArray(next)) for (const item of next as unknown[]) pending.push(item);
    else if (isPlainObject(next))
      for (const [key, item] of Object.entries(next)) {
        chars += key.length;
        pending.push(item);
      }
  }
  return { values, chars };
}
