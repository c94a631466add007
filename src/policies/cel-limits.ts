/**
 * What a policy may read, build and spend. The save check prices an expression's worst case on
 * inputs at these limits and refuses it above them; the run-time meter holds every evaluation to
 * them, checking each size before the value is built (V8 ends the process, uncatchably, on a
 * string or array past its own limits).
 *
 * Costs are in units of about a nanosecond of the two-core machine the bench runs on, measured
 * for the worst input of each operation (figures beside each unit below), so that an evaluation
 * within COST_LIMIT holds the event loop a few milliseconds at most.
 */

/** The most values (list items, map entries, scalars) of a call's arguments a policy may read. */
export const ARGUMENT_VALUES_LIMIT = 10_000;

/**
 * The most characters of strings (map keys included) of a call's arguments a policy may read.
 * A policy reads the arguments it names (`args.path`), all of them only when it uses `args`
 * whole; a call past the limit in what a policy reads is refused, one past it elsewhere is not.
 * 100,000 is far above a path, a URL or a command, and low enough that scanning it a few times
 * (8 ns a character at worst) fits in one evaluation's budget.
 */
export const ARGUMENT_CHARACTERS_LIMIT = 100_000;

/** How deep the arguments a policy reads may nest: the library compares and types recursively. */
export const ARGUMENT_DEPTH_LIMIT = 64;

/**
 * The longest string (or bytes) an evaluation may build, and the most elements of a list or map:
 * ten times what a policy may read, so that joining a few arguments is fine while a value that
 * doubles (the 12 nested `cel.bind` of a reported attack: 4,096 times an argument) is refused.
 */
export const STRING_LIMIT = 1_000_000;
export const LIST_LIMIT = 1_000_000;

/** One evaluation's budget: about 5 ms of the measuring machine at the worst input. */
export const COST_LIMIT = 5_000_000;

/** What the operations cost, in units; the comments give the worst measured case. */
export const UNIT = {
  /** One node of the expression evaluated: 17–19 ns in a loop's body. */
  node: 25,
  /** The nodes a loop macro adds to each run of its body (the step around the predicate). */
  iterationNodes: 5,
  /** The nodes a loop macro adds once (its accumulator and the loop itself). */
  loopNodes: 3,
  /** A character searched (`contains`, `indexOf`, a split's scan): 8.3 ns for `indexOf`'s worst. */
  scan: 10,
  /** A character counted by `size()`, which walks code points: 7.8 ns. */
  count: 10,
  /** A character whose case changes (`lowerAscii`, `upperAscii`): 27 ns for `İ`. */
  caseChange: 30,
  /** A character copied, joined, converted or flattened: 4.5 ns (UTF-8 of astral characters). */
  copy: 5,
  /** A character compared: 0.9 ns. */
  compare: 2,
  /** A piece a split makes: 28 ns. */
  piece: 30,
  /** An element copied, joined or compared: 19 ns. */
  element: 20,
  /** A key listed of a map (`size`, a loop over a map): `Object.keys` takes 110 ns a key. */
  key: 120,
  /** A conversion in a named time zone (`now.getHours("Europe/Berlin")`): Intl takes 97 µs. */
  zone: 100_000,
  /** `timestamp("…")`: 2 µs. */
  timestamp: 2_000,
  /** `duration("…")` of at most DURATION_TEXT_LIMIT characters: 0.14 ms. */
  duration: 150_000,
  /** A character matched per instruction of its RE2 program (plus REGEX_OVERHEAD): 17–46 ns. */
  regexStep: 22,
  /** A character of a pattern compiled while evaluating: up to 18 µs (`\pL`). */
  regexCompile: 20_000,
} as const;

/** Instructions added to a pattern's program when pricing a match (the engine's own overhead). */
export const REGEX_OVERHEAD = 10;

/**
 * What one `matches` may cost: the text's length × (program size + REGEX_OVERHEAD) × regexStep,
 * checked before it runs; past it the evaluation fails. RE2 is linear in the text, but its
 * fallback engine pays for every instruction at every character: `(a?){100}a{100}$` took 86 ms
 * on 10,000 characters. 2,200,000 lets `^(a+)+$` read 5,000 characters.
 */
export const MATCH_COST_LIMIT = 2_200_000;

/** The largest program a pattern written in the expression may compile to (checked on save). */
export const LITERAL_PROGRAM_LIMIT = 10_000;

/**
 * The longest pattern built while evaluating (`matches(x, args.p)`), which then may not use a
 * counted repetition (`{n}`): RE2 compiles `a{1000}` to a thousand instructions in 15 ms.
 */
export const DYNAMIC_PATTERN_LIMIT = 64;

/** The longest text `duration()` parses: its parser takes time cubic in it (1,000 digits: 0.3 s). */
export const DURATION_TEXT_LIMIT = 64;

/**
 * What the save check assumes of the principal and the tool, which callers do not choose: their
 * text fields at most 1,000 characters (names are at most 200), at most 1,000 teams, and
 * annotations as large as the arguments may be. The meter holds an evaluation to its budget
 * whatever they hold.
 */
export const PRINCIPAL_TEXT_LIMIT = 1_000;
export const TEAMS_LIMIT = 1_000;
export const TOOL_TEXT_LIMIT = 1_000;

/** Timestamp getters that take an optional time zone, which costs a lookup and a scan. */
export const TIME_ZONE_GETTERS: ReadonlySet<string> = new Set([
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getFullYear',
  'getHours',
  'getMilliseconds',
  'getMinutes',
  'getMonth',
  'getSeconds',
]);
