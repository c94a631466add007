import {
  ARGUMENT_CHARACTERS_LIMIT,
  ARGUMENT_DEPTH_LIMIT,
  ARGUMENT_VALUES_LIMIT,
} from './cel-limits';
import { isJsonObject } from '../common/json-value';

/** A JSON value as a policy reads it: its values, characters (of strings and keys) and depth. */
export interface InputSize {
  values: number;
  chars: number;
  depth: number;
}

/**
 * Measures a JSON value without recursion, stopping as soon as it is past a limit (what it
 * returns then is past it too).
 */
export function measure(value: unknown): InputSize {
  const size: InputSize = { values: 0, chars: 0, depth: 0 };
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0 && !pastLimits(size)) {
    const [next, depth] = pending.pop()!;
    size.values += 1;
    size.depth = Math.max(size.depth, depth);
    if (typeof next === 'string') size.chars += next.length;
    else if (Array.isArray(next))
      for (const item of next as unknown[]) pending.push([item, depth + 1]);
    else if (typeof next === 'object' && next !== null)
      for (const [key, item] of Object.entries(next)) {
        size.chars += key.length;
        pending.push([item, depth + 1]);
      }
  }
  return size;
}

function pastLimits(size: InputSize): boolean {
  return (
    size.values > ARGUMENT_VALUES_LIMIT ||
    size.chars > ARGUMENT_CHARACTERS_LIMIT ||
    size.depth > ARGUMENT_DEPTH_LIMIT
  );
}

/**
 * One call's arguments, measured by what each policy reads (the fields it names, or all of them),
 * each field once.
 */
export class ArgumentReads {
  private readonly sizes = new Map<string | null, InputSize>();

  constructor(private readonly args: Record<string, unknown>) {}

  /** Why the arguments these fields name (null: all) are too large for a policy, or null. */
  refusal(fields: ReadonlySet<string> | null): string | null {
    const total: InputSize = { values: 0, chars: 0, depth: 0 };
    for (const field of fields ?? [null]) {
      if (field !== null && !Object.hasOwn(this.args, field)) continue;
      const size = this.sizeOf(field);
      total.values += size.values;
      total.chars += size.chars;
      total.depth = Math.max(total.depth, size.depth);
    }
    if (!pastLimits(total)) return null;
    const read =
      fields === null ? 'The arguments' : `The arguments ${[...fields].map(quoted).join(', ')}`;
    const past =
      total.values > ARGUMENT_VALUES_LIMIT
        ? `hold more than ${ARGUMENT_VALUES_LIMIT} values`
        : total.chars > ARGUMENT_CHARACTERS_LIMIT
          ? `hold more than ${ARGUMENT_CHARACTERS_LIMIT} characters`
          : `nest more than ${ARGUMENT_DEPTH_LIMIT} levels deep`;
    return `${read} ${past}; a policy reads at most ${ARGUMENT_VALUES_LIMIT} values and ${ARGUMENT_CHARACTERS_LIMIT} characters, nested at most ${ARGUMENT_DEPTH_LIMIT} deep`;
  }

  private sizeOf(field: string | null): InputSize {
    let size = this.sizes.get(field);
    if (!size) {
      size = measure(field === null ? this.args : this.args[field]);
      this.sizes.set(field, size);
    }
    return size;
  }
}

const quoted = (field: string) => `'${field}'`;

/** The annotations MCP defines for a tool. */
const STANDARD_ANNOTATIONS = [
  'title',
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;

/**
 * A tool's annotations as policies see them: the upstream's, with null for each standard one it
 * left out. `tool.annotations.destructiveHint == true` is then false for a tool that gives no
 * hint, where reading a missing key would fail the policy (and, failing closed, hide the tool).
 */
export function withStandardAnnotations(
  annotations: object | null | undefined,
): Record<string, unknown> {
  const given = isJsonObject(annotations) ? annotations : {};
  const filled = Object.fromEntries(STANDARD_ANNOTATIONS.map((name) => [name, null]));
  // Spread defines properties, so a `__proto__` key of the upstream's stays a key.
  return { ...filled, ...given };
}
