import { RE2JS } from '@bufbuild/re2';
import {
  DYNAMIC_PATTERN_LIMIT,
  LITERAL_PROGRAM_LIMIT,
  MATCH_COST_LIMIT,
  REGEX_OVERHEAD,
  UNIT,
} from './cel-limits';
import { errorMessage } from '../common/error-message';
import { Memo } from '../common/memo';

/** The longest pattern `matches` compiles. */
export const PATTERN_MAX_LENGTH = 1024;

/** How many patterns built while evaluating are kept compiled. */
const PATTERN_CACHE = 256;

/** A counted repetition (`a{3}`, `x{2,}`): RE2 writes out its body that many times. */
const COUNTED_REPETITION = /\{\d/;

/** A compiled pattern and the size of its program, which prices each match. */
export interface Pattern {
  readonly re: RE2JS;
  readonly instructions: number;
}

/** A pattern that cannot be used: it does not compile, or is too large. */
export class PatternError extends Error {}

/** What matching a text of this length against this pattern costs, in units. */
export function matchCost(textLength: number, instructions: number): number {
  return textLength * (instructions + REGEX_OVERHEAD) * UNIT.regexStep;
}

/**
 * A pattern written in the expression: compiled once, when the expression is, and refused then if
 * it does not compile or its program is too large to match anything in budget.
 */
export function literalPattern(pattern: string): Pattern {
  if (pattern.length > PATTERN_MAX_LENGTH)
    throw new PatternError(`the pattern is longer than ${PATTERN_MAX_LENGTH} characters`);
  const compiled = compile(pattern);
  if (compiled.instructions > LITERAL_PROGRAM_LIMIT)
    throw new PatternError(
      `the pattern compiles to ${compiled.instructions} instructions, more than ${LITERAL_PROGRAM_LIMIT}: it could match no more than a few characters within the budget`,
    );
  return compiled;
}

/**
 * Patterns built while evaluating (`matches(x, args.p)`), compiled on first use and kept. Their
 * compile time is bounded by refusing long ones and counted repetitions.
 */
export class DynamicPatterns {
  private readonly compiled = new Memo<string, Pattern>(PATTERN_CACHE);

  /** The compiled pattern, or null when it must be compiled (at `compileCost`). */
  cached(pattern: string): Pattern | null {
    return this.compiled.get(pattern) ?? null;
  }

  /** Why the pattern may not be compiled while evaluating, or null. */
  static refusal(pattern: string): string | null {
    if (pattern.length > DYNAMIC_PATTERN_LIMIT)
      return `a pattern built while evaluating may be at most ${DYNAMIC_PATTERN_LIMIT} characters long; this one is ${pattern.length}`;
    if (COUNTED_REPETITION.test(pattern))
      return 'a pattern built while evaluating may not use a counted repetition ({n})';
    return null;
  }

  static compileCost(pattern: string): number {
    return pattern.length * UNIT.regexCompile;
  }

  compile(pattern: string): Pattern {
    return this.compiled.remember(pattern, compile(pattern));
  }
}

/** Why matching this text would cost too much, or null. */
export function matchRefusal(textLength: number, pattern: Pattern): string | null {
  const cost = matchCost(textLength, pattern.instructions);
  return cost > MATCH_COST_LIMIT
    ? `matches: a text of ${textLength} characters against a pattern of ${pattern.instructions} instructions could cost ${cost} units, more than the ${MATCH_COST_LIMIT} one match may`
    : null;
}

function compile(pattern: string): Pattern {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    throw new PatternError(`matches: invalid pattern: ${errorMessage(error)}`);
  }
  return { re, instructions: re.re2().prog.numInst() };
}
