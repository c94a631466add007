import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import {
  ARGUMENT_CHARACTERS_LIMIT,
  ARGUMENT_VALUES_LIMIT,
  COST_LIMIT,
  DYNAMIC_PATTERN_LIMIT,
  LIST_LIMIT,
  MATCH_COST_LIMIT,
  PRINCIPAL_TEXT_LIMIT,
  STRING_LIMIT,
  TEAMS_LIMIT,
  TOOL_TEXT_LIMIT,
  UNIT,
  TIME_ZONE_GETTERS,
} from './cel-limits';
import { literalPattern, matchCost, type Pattern, PatternError } from './cel-patterns';

type AstNode = Cel.ASTNode;

/**
 * An upper bound: `k`, plus `v` and `c` times the values and characters of the element a loop is
 * at (both 0 outside a loop). Summed over a loop's runs it stays exact in the element's share:
 * the elements together hold no more than the list, so a body linear in its element costs, over
 * all runs, at most its constant per run plus its rates times the whole list.
 */
interface Bound {
  readonly k: number;
  readonly v: number;
  readonly c: number;
}

/** What a value is, where known: it decides what `size()`, `in` and a loop over it cost. */
type Kind = 'string' | 'list' | 'map' | 'other' | 'any';

/**
 * A value's size: the values in it (itself, elements, entries, nested), its characters (of
 * strings, keys and bytes) and, where known, its kind.
 */
interface Size {
  readonly values: Bound;
  readonly chars: Bound;
  readonly kind: Kind;
}

interface Estimate {
  readonly size: Size;
  readonly cost: Bound;
}

/** The largest element of the list a loop walks; null outside a loop. */
type Element = { readonly values: number; readonly chars: number } | null;

/** Where the estimate refuses the expression, and why. */
export class CostRefusal extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** What the save check found: the worst-case cost, and the patterns written in the expression. */
export interface CostEstimate {
  cost: number;
  patterns: Map<string, Pattern>;
}

const constant = (k: number): Bound => ({ k, v: 0, c: 0 });
const ZERO = constant(0);
const add = (...bounds: Bound[]): Bound =>
  bounds.reduce((sum, b) => ({ k: sum.k + b.k, v: sum.v + b.v, c: sum.c + b.c }), ZERO);
const scale = (b: Bound, factor: number): Bound => ({
  k: b.k * factor,
  v: b.v * factor,
  c: b.c * factor,
});
/** At least each of the two (for non-negative sizes). */
const most = (a: Bound, b: Bound): Bound => ({
  k: Math.max(a.k, b.k),
  v: Math.max(a.v, b.v),
  c: Math.max(a.c, b.c),
});

const text = (chars: Bound): Size => ({ values: constant(1), chars, kind: 'string' });
const SCALAR: Size = { values: constant(1), chars: ZERO, kind: 'other' };
const ARGUMENTS: Size = {
  values: constant(ARGUMENT_VALUES_LIMIT),
  chars: constant(ARGUMENT_CHARACTERS_LIMIT),
  kind: 'map',
};
const list = (items: number, itemChars: number): Size => ({
  values: constant(items + 1),
  chars: constant(items * itemChars),
  kind: 'list',
});
const joined = (a: Kind, b: Kind): Kind => (a === b ? a : 'any');
const mayBe = (size: Size, kind: Kind) => size.kind === kind || size.kind === 'any';

/** The principal's and the tool's fields as the save check assumes them (cel-limits). */
const FIELDS: Record<'principal' | 'tool', Record<string, Size>> = {
  principal: {
    subject: text(constant(PRINCIPAL_TEXT_LIMIT)),
    name: text(constant(PRINCIPAL_TEXT_LIMIT)),
    user: text(constant(PRINCIPAL_TEXT_LIMIT)),
    role: text(constant(PRINCIPAL_TEXT_LIMIT)),
    teams: list(TEAMS_LIMIT, PRINCIPAL_TEXT_LIMIT),
    teamIds: list(TEAMS_LIMIT, PRINCIPAL_TEXT_LIMIT),
    token: text(constant(PRINCIPAL_TEXT_LIMIT)),
    source: text(constant(PRINCIPAL_TEXT_LIMIT)),
  },
  tool: {
    id: text(constant(TOOL_TEXT_LIMIT)),
    name: text(constant(TOOL_TEXT_LIMIT)),
    // main's tool record adds it; priced here so that the two merge without a gap.
    listedName: text(constant(TOOL_TEXT_LIMIT)),
    originalName: text(constant(TOOL_TEXT_LIMIT)),
    gateway: text(constant(TOOL_TEXT_LIMIT)),
    title: text(constant(TOOL_TEXT_LIMIT)),
    annotations: ARGUMENTS,
    hash: text(constant(TOOL_TEXT_LIMIT)),
    pinnedHash: text(constant(TOOL_TEXT_LIMIT)),
  },
};

const whole = (fields: Record<string, Size>): Size => ({
  values: add(constant(1), ...Object.values(fields).map((field) => field.values)),
  chars: add(...Object.values(fields).map((field) => field.chars)),
  kind: 'map',
});

const VARIABLES: ReadonlyMap<string, Size> = new Map([
  ['principal', whole(FIELDS.principal)],
  ['tool', whole(FIELDS.tool)],
  ['args', ARGUMENTS],
  ['now', SCALAR],
]);

/** The loop macros, and the loop's result. */
const LOOPS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** What a function gives and costs (beyond its operands), from its operands' sizes. */
type Priced = (operands: Size[], mul: (a: Bound, b: Bound) => Bound) => Estimate;

const priced = (size: Size, cost: Bound): Estimate => ({ size, cost });

const inTimeZone: Priced = ([, zone]) =>
  priced(SCALAR, zone ? add(constant(UNIT.zone), scale(zone.chars, UNIT.scan)) : ZERO);
const parsing: Priced = ([value]) => priced(SCALAR, scale(value!.chars, UNIT.copy));
const copying =
  (factor: number, extra = 0, kind: Kind = 'string'): Priced =>
  ([value]) => {
    const chars = add(scale(value!.chars, factor), constant(extra));
    return priced({ ...text(chars), kind }, scale(chars, UNIT.copy));
  };
const searching: Priced = ([subject, needle]) =>
  priced(SCALAR, scale(add(subject!.chars, needle!.chars), UNIT.scan));

/**
 * Every function the library offers a policy, priced from cel-js 8's implementations
 * (lib/functions.js): what a function builds and what it costs beyond its operands. A name not
 * here is refused, so a function a later version adds cannot slip past the budget.
 */
const FUNCTIONS: ReadonlyMap<string, Priced> = new Map<string, Priced>([
  // A string's size walks its code points, a map's lists its keys, a list's is at hand.
  [
    'size',
    ([value]) =>
      priced(
        SCALAR,
        add(
          mayBe(value!, 'string') ? scale(value!.chars, UNIT.count) : ZERO,
          mayBe(value!, 'map') ? scale(value!.values, UNIT.key) : ZERO,
        ),
      ),
  ],
  ['contains', searching],
  ['indexOf', searching],
  ['lastIndexOf', searching],
  ['startsWith', ([, prefix]) => priced(SCALAR, scale(prefix!.chars, UNIT.scan))],
  ['endsWith', ([, suffix]) => priced(SCALAR, scale(suffix!.chars, UNIT.scan))],
  // toLowerCase and toUpperCase are Unicode-wide: one character can become three ('ΐ').
  [
    'lowerAscii',
    ([value]) => priced(text(scale(value!.chars, 3)), scale(value!.chars, UNIT.caseChange)),
  ],
  [
    'upperAscii',
    ([value]) => priced(text(scale(value!.chars, 3)), scale(value!.chars, UNIT.caseChange)),
  ],
  ['trim', copying(1)],
  ['substring', copying(1)],
  [
    'split',
    ([value, , limit]) => {
      const pieces = add(value!.chars, constant(1));
      return priced(
        { values: add(pieces, constant(1)), chars: value!.chars, kind: 'list' },
        add(scale(value!.chars, UNIT.scan + (limit ? UNIT.copy : 0)), scale(pieces, UNIT.piece)),
      );
    },
  ],
  [
    'join',
    ([items, separator], mul) => {
      const chars = add(items!.chars, separator ? mul(items!.values, separator.chars) : ZERO);
      return priced(text(chars), add(scale(chars, UNIT.copy), scale(items!.values, UNIT.element)));
    },
  ],
  // UTF-8 takes up to three bytes for one UTF-16 unit.
  ['bytes', copying(3, 0, 'other')],
  ['string', copying(1, 32)],
  ['hex', copying(2)],
  ['base64', copying(4 / 3, 4)],
  ['at', () => priced(SCALAR, ZERO)],
  ['dyn', ([value]) => priced(value!, ZERO)],
  ['type', () => priced(SCALAR, ZERO)],
  ['bool', parsing],
  ['int', parsing],
  ['uint', parsing],
  ['double', parsing],
  ['timestamp', () => priced(SCALAR, constant(UNIT.timestamp))],
  // The meter refuses a longer text than DURATION_TEXT_LIMIT before parsing it.
  ['duration', () => priced(SCALAR, constant(UNIT.duration))],
  ...[...TIME_ZONE_GETTERS].map((name): [string, Priced] => [name, inTimeZone]),
]);

/** Functions refused whatever their operands, and why. */
const REFUSED = new Map([
  [
    'json',
    '`bytes.json()` is not available in policies: it turns one string into any number of values (`args` is parsed JSON already).',
  ],
]);

/** Every function name the save check prices, prices as a macro, or refuses. */
export const KNOWN_FUNCTIONS: ReadonlySet<string> = new Set([
  ...FUNCTIONS.keys(),
  ...REFUSED.keys(),
  ...LOOPS,
  'bind',
  'has',
  'matches',
]);

/**
 * Prices an expression's worst case on inputs at the limits (cel-limits), the way cel-go's cost
 * estimator does: each node's largest value and its cost, from its operands'. Refuses, at the node
 * where it happens, a value larger than an evaluation may build or a cost past the budget.
 * Expects what `analyse` lets through: loops do not nest.
 */
export function estimateCost(root: AstNode, text: string): CostEstimate {
  const estimator = new Estimator(text);
  const { cost } = estimator.estimate(root, VARIABLES, null);
  return { cost: cost.k, patterns: estimator.patterns };
}

class Estimator {
  readonly patterns = new Map<string, Pattern>();

  constructor(private readonly text: string) {}

  estimate(node: AstNode, scope: ReadonlyMap<string, Size>, element: Element): Estimate {
    const found = this.node(node, scope, element);
    const worst = (b: Bound) => this.worst(b, element);
    const values = worst(found.size.values);
    const chars = worst(found.size.chars);
    if (chars > STRING_LIMIT || values > LIST_LIMIT + 1) {
      const built =
        found.size.kind === 'string'
          ? `a string of up to ${count(chars)} characters`
          : `${found.size.kind === 'list' ? 'a list' : 'a value'} of up to ${count(values)} values and ${count(chars)} characters`;
      this.refuse(
        node,
        `could build ${built}; an evaluation may build at most ${count(STRING_LIMIT)} characters and ${count(LIST_LIMIT)} elements in one value, from arguments of up to ${count(ARGUMENT_CHARACTERS_LIMIT)} characters.`,
      );
    }
    const cost = worst(found.cost);
    if (cost > COST_LIMIT)
      this.refuse(
        node,
        `could cost up to ${count(cost)} units, more than the ${count(COST_LIMIT)} (about 5 ms) one evaluation may spend, on arguments of up to ${count(ARGUMENT_VALUES_LIMIT)} values and ${count(ARGUMENT_CHARACTERS_LIMIT)} characters.`,
      );
    return found;
  }

  private node(node: AstNode, scope: ReadonlyMap<string, Size>, element: Element): Estimate {
    const here = constant(UNIT.node);
    const sub = (child: AstNode) => this.estimate(child, scope, element);
    const mul = (a: Bound, b: Bound) => this.mul(a, b, element);
    const least = (a: Bound, b: Bound) => this.least(a, b, element);
    switch (node.op) {
      case 'value': {
        const value: unknown = node.args;
        if (typeof value === 'string') return priced(text(constant(value.length)), here);
        if (value instanceof Uint8Array)
          return priced({ ...SCALAR, chars: constant(value.length) }, here);
        return priced(SCALAR, here);
      }
      case 'id':
        return priced(scope.get(node.args) ?? SCALAR, here);
      case '.':
      case '.?': {
        const [target, field] = node.args;
        if (target.op === 'id' && (target.args === 'principal' || target.args === 'tool')) {
          const known = FIELDS[target.args][field];
          if (known && scope.get(target.args) === VARIABLES.get(target.args))
            return priced(known, add(here, constant(UNIT.node)));
        }
        const object = sub(target);
        return priced({ ...object.size, kind: 'any' }, add(here, object.cost));
      }
      case '[]':
      case '[?]': {
        const [target, index] = node.args.map(sub) as [Estimate, Estimate];
        return priced({ ...target.size, kind: 'any' }, add(here, target.cost, index.cost));
      }
      case '!_':
      case '-_':
        return priced(SCALAR, add(here, sub(node.args).cost));
      case '&&':
      case '||':
      case '-':
      case '*':
      case '/':
      case '%':
        return priced(SCALAR, add(here, ...node.args.map((operand) => sub(operand).cost)));
      case '?:': {
        const [condition, then, otherwise] = node.args.map(sub) as [Estimate, Estimate, Estimate];
        return priced(
          {
            values: most(then.size.values, otherwise.size.values),
            chars: most(then.size.chars, otherwise.size.chars),
            kind: joined(then.size.kind, otherwise.size.kind),
          },
          // Both branches: the meter charges a branch's nodes before knowing which one runs.
          add(here, condition.cost, then.cost, otherwise.cost),
        );
      }
      case '+': {
        const [left, right] = node.args.map(sub) as [Estimate, Estimate];
        const size = {
          values: add(left.size.values, right.size.values),
          chars: add(left.size.chars, right.size.chars),
          kind: joined(left.size.kind, right.size.kind),
        };
        return priced(
          size,
          add(
            here,
            left.cost,
            right.cost,
            scale(size.chars, UNIT.copy),
            scale(size.values, UNIT.element),
          ),
        );
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [left, right] = node.args.map(sub) as [Estimate, Estimate];
        return priced(
          SCALAR,
          add(
            here,
            left.cost,
            right.cost,
            scale(least(left.size.chars, right.size.chars), UNIT.compare),
            scale(least(left.size.values, right.size.values), UNIT.element),
          ),
        );
      }
      case 'in': {
        const [needle, haystack] = node.args.map(sub) as [Estimate, Estimate];
        // A list is searched element by element, a map looked up.
        const search = mayBe(haystack.size, 'list')
          ? add(
              scale(haystack.size.values, UNIT.element),
              scale(
                least(mul(needle.size.chars, haystack.size.values), haystack.size.chars),
                UNIT.compare,
              ),
            )
          : ZERO;
        return priced(SCALAR, add(here, needle.cost, haystack.cost, search));
      }
      case 'list': {
        const items = node.args.map(sub);
        return priced(
          {
            values: add(constant(1), ...items.map((item) => item.size.values)),
            chars: add(...items.map((item) => item.size.chars)),
            kind: 'list',
          },
          add(here, constant(items.length * UNIT.element), ...items.map((item) => item.cost)),
        );
      }
      case 'map': {
        const entries = node.args.flatMap(([key, value]) => [sub(key), sub(value)]);
        return priced(
          {
            values: add(constant(1), ...entries.map((entry) => entry.size.values)),
            chars: add(...entries.map((entry) => entry.size.chars)),
            kind: 'map',
          },
          add(here, constant(entries.length * UNIT.element), ...entries.map((entry) => entry.cost)),
        );
      }
      case 'call':
        return this.call(node, node.args[0], null, node.args[1], scope, element);
      case 'rcall':
        return this.call(node, node.args[0], node.args[1], node.args[2], scope, element);
    }
  }

  private call(
    node: AstNode,
    name: string,
    receiver: AstNode | null,
    args: AstNode[],
    scope: ReadonlyMap<string, Size>,
    element: Element,
  ): Estimate {
    const here = constant(UNIT.node);
    if (receiver && LOOPS.has(name)) return this.loop(node, name, receiver, args, scope, element);
    if (receiver?.op === 'id' && receiver.args === 'cel' && name === 'bind') {
      const [variable, value, body] = args as [AstNode, AstNode, AstNode];
      const bound = this.estimate(value, scope, element);
      const inner = new Map(scope).set(variable.args as string, bound.size);
      const result = this.estimate(body, inner, element);
      // `cel` and the variable are nodes too.
      return priced(result.size, add(here, constant(2 * UNIT.node), bound.cost, result.cost));
    }
    if (!receiver && name === 'has') {
      const checked = this.estimate(args[0]!, scope, element);
      return priced(SCALAR, add(here, checked.cost));
    }
    const operands = [...(receiver ? [receiver] : []), ...args].map((operand) =>
      this.estimate(operand, scope, element),
    );
    const operandsCost = add(here, ...operands.map((operand) => operand.cost));
    if (!receiver && name === 'matches' && args.length === 2) {
      const pattern = this.pattern(args[1]!);
      const [subject] = operands as [Estimate];
      const matching = pattern
        ? scale(subject.size.chars, matchCost(1, pattern.instructions))
        : constant(MATCH_COST_LIMIT + DYNAMIC_PATTERN_LIMIT * UNIT.regexCompile);
      // The meter refuses a match past MATCH_COST_LIMIT before it runs.
      const capped =
        this.worst(matching, element) > MATCH_COST_LIMIT ? constant(MATCH_COST_LIMIT) : matching;
      return priced(SCALAR, add(operandsCost, capped));
    }
    const refused = REFUSED.get(name);
    if (refused) this.refuse(node, refused, false);
    const price = FUNCTIONS.get(name);
    if (!price) return this.refuse(node, `\`${name}\` is not available in policies.`, false);
    const result = price(
      operands.map((operand) => operand.size),
      (a, b) => this.mul(a, b, element),
    );
    return priced(result.size, add(operandsCost, result.cost));
  }

  /**
   * A loop over a list or map: its body's cost summed over the runs (the element's share summed
   * over the elements is at most the whole list's), and for `map` the values it collects.
   */
  private loop(
    node: AstNode,
    name: string,
    receiver: AstNode,
    args: AstNode[],
    scope: ReadonlyMap<string, Size>,
    element: Element,
  ): Estimate {
    if (element) this.refuse(node, `\`${name}\` cannot be used inside another loop.`, false);
    const walked = this.estimate(receiver, scope, null);
    const values = walked.size.values.k;
    const chars = walked.size.chars.k;
    const [variable, ...bodies] = args as [AstNode, ...AstNode[]];
    const inner = new Map(scope).set(variable.args as string, {
      values: { k: 0, v: 1, c: 0 },
      chars: { k: 0, v: 0, c: 1 },
      kind: 'any',
    });
    const estimates = bodies.map((body) => this.estimate(body, inner, { values, chars }));
    // At most one run per value of the list; a map's keys are listed first.
    const overAll = (b: Bound) => b.k * values + b.v * values + b.c * chars;
    const perRun = add(
      constant(UNIT.iterationNodes * UNIT.node),
      ...estimates.map((body) => body.cost),
    );
    const cost = add(
      constant(UNIT.node),
      walked.cost,
      constant(
        UNIT.loopNodes * UNIT.node +
          (mayBe(walked.size, 'map') ? values * UNIT.key : 0) +
          overAll(perRun),
      ),
    );
    switch (name) {
      case 'filter':
        return priced({ ...walked.size, kind: 'list' }, cost);
      case 'map': {
        const collected = estimates[estimates.length - 1]!.size;
        return priced(
          {
            values: constant(1 + overAll(collected.values)),
            chars: constant(overAll(collected.chars)),
            kind: 'list',
          },
          cost,
        );
      }
      default:
        return priced(SCALAR, cost);
    }
  }

  /** A pattern written in the expression, compiled now; null for one built while evaluating. */
  private pattern(node: AstNode): Pattern | null {
    if (node.op !== 'value' || typeof node.args !== 'string') return null;
    const pattern = node.args;
    let compiled = this.patterns.get(pattern);
    if (!compiled) {
      try {
        compiled = literalPattern(pattern);
      } catch (error) {
        if (!(error instanceof PatternError)) throw error;
        return this.refuse(node, error.message, false);
      }
      this.patterns.set(pattern, compiled);
    }
    return compiled;
  }

  private worst(bound: Bound, element: Element): number {
    return element ? bound.k + bound.v * element.values + bound.c * element.chars : bound.k;
  }

  /** A product: exact when either is constant, else both at their worst (no longer linear). */
  private mul(a: Bound, b: Bound, element: Element): Bound {
    if (a.v === 0 && a.c === 0) return scale(b, a.k);
    if (b.v === 0 && b.c === 0) return scale(a, b.k);
    return constant(this.worst(a, element) * this.worst(b, element));
  }

  private least(a: Bound, b: Bound, element: Element): Bound {
    return this.worst(a, element) <= this.worst(b, element) ? a : b;
  }

  /** Refuses at the node: its source, quoted, and why (or only why). */
  private refuse(node: AstNode, why: string, quoted = true): never {
    const source = this.text.slice(node.start, node.end);
    const shown = source.length > 60 ? `${source.slice(0, 57)}…` : source;
    throw new CostRefusal(quoted ? `\`${shown}\` ${why}` : why, node.start);
  }
}

function count(value: number): string {
  return Math.ceil(value).toLocaleString('en-US');
}
