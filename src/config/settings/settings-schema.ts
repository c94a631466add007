import { z } from 'zod';
import { TOOL_NAME_RULE } from '../../common/tool-name-rule';
import { type TuningKnob } from './setting';
import { TUNING_KNOBS } from './tuning-knobs';

function knobSchema(knob: TuningKnob): z.ZodType {
  switch (knob.type) {
    case 'integer':
      return z.number().int().min(knob.min).max(knob.max).describe(knob.description);
    case 'boolean':
      return z.boolean().describe(knob.description);
    case 'enum':
      return z.enum(knob.values as [string, ...string[]]).describe(knob.description);
    case 'names':
      return z
        .array(z.string().regex(TOOL_NAME_RULE, 'must be a tool name (A-Z a-z 0-9 _ . -)'))
        .max(1000)
        .describe(knob.description);
  }
}

/** The knobs' groups (`upstream`, `mcp`, …) in catalogue order, each with its knobs. */
export function knobGroups(): Map<string, TuningKnob[]> {
  const groups = new Map<string, TuningKnob[]>();
  for (const knob of TUNING_KNOBS) {
    const [group = ''] = knob.key.split('.');
    groups.set(group, [...(groups.get(group) ?? []), knob]);
  }
  return groups;
}

/**
 * The document's `settings` block: every knob optional, by group, unknown keys refused so that a
 * misspelt knob is an error rather than a silent default.
 */
export const settingsSchema = z
  .object(
    Object.fromEntries(
      [...knobGroups()].map(([group, knobs]) => [
        group,
        z
          .object(
            Object.fromEntries(
              knobs.map((knob) => [
                knob.key.slice(group.length + 1),
                knobSchema(knob).meta({ default: knob.default }).optional(),
              ]),
            ),
          )
          .strict()
          .optional(),
      ]),
    ),
  )
  .strict()
  .describe(
    'Tuning knobs (timeouts, breaker, limits, TTLs, cache sizes). Read from CONFIG_FILE at each ' +
      'start; left out: the default.',
  );
