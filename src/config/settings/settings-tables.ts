import { DEPLOYMENT_SETTINGS } from './deployment-settings';
import { type TuningKnob } from './setting';
import { TUNING_KNOBS } from './tuning-knobs';

/** The README's two tables, between these markers, are written from the catalogue. */
export const TABLE_MARKERS = {
  deployment: ['<!-- settings:deployment -->', '<!-- /settings:deployment -->'],
  knobs: ['<!-- settings:knobs -->', '<!-- /settings:knobs -->'],
} as const;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function table(head: string[], rows: string[][]): string {
  return [head, head.map(() => '---'), ...rows]
    .map((row) => `| ${row.map(cell).join(' | ')} |`)
    .join('\n');
}

function shown(knob: TuningKnob): string {
  switch (knob.type) {
    case 'integer':
      return `\`${knob.default}\` (${knob.min}–${knob.max})`;
    case 'boolean':
      return `\`${knob.default}\``;
    case 'enum':
      return `\`${knob.default}\` (${knob.values.map((value) => `\`${value}\``).join(', ')})`;
    case 'names':
      return 'none';
  }
}

export function deploymentTable(): string {
  return table(
    ['Variable', 'Default', 'Meaning'],
    DEPLOYMENT_SETTINGS.map((setting) => [
      `\`${setting.env}\``,
      setting.default,
      setting.description,
    ]),
  );
}

export function knobsTable(): string {
  return table(
    ['`settings.`', 'Default', 'Meaning', 'Old variable'],
    TUNING_KNOBS.map((knob) => [
      `\`${knob.key}\``,
      shown(knob),
      knob.type === 'integer' && knob.perGateway
        ? `${knob.description} A gateway may set its own ([per gateway](#per-gateway)).`
        : knob.description,
      knob.env === undefined ? 'none' : `\`${knob.env}\``,
    ]),
  );
}

/** `readme` with both tables rewritten; throws when a marker is missing. */
export function withSettingsTables(readme: string): string {
  let text = readme;
  for (const [which, body] of [
    ['deployment', deploymentTable()],
    ['knobs', knobsTable()],
  ] as const) {
    const [open, close] = TABLE_MARKERS[which];
    const start = text.indexOf(open);
    const end = text.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md has no ${open} … ${close}`);
    text = `${text.slice(0, start + open.length)}\n\n${body}\n\n${text.slice(end)}`;
  }
  return text;
}
