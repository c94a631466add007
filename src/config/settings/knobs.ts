import { existsSync, readFileSync } from 'node:fs';
import { parseYamlText } from '../../common/yaml-text';
import { utf8Text } from '../../common/untrusted-text';
import { ConfigError } from './config-error';
import { type KnobValue, type TuningKnob } from './setting';
import { settingsSchema } from './settings-schema';
import { TUNING_KNOBS } from './tuning-knobs';

type Env = Record<string, string | undefined>;

/** The document's `settings` block as written: group → knob → value. */
export type DocumentSettings = Record<string, Record<string, unknown> | undefined>;

const BY_KEY = new Map(TUNING_KNOBS.map((knob) => [knob.key, knob]));

function envValue(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function fail(name: string, rule: string, value: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${rule} (got '${value}')`);
}

/** An old environment variable's text as the knob's value, checked as it always was. */
function fromEnv(knob: TuningKnob, variable: string, raw: string): KnobValue {
  switch (knob.type) {
    case 'integer': {
      const parsed = Number(raw);
      if (!/^-?\d+$/.test(raw) || parsed < knob.min || parsed > knob.max)
        fail(variable, `must be an integer from ${knob.min} to ${knob.max}`, raw);
      return parsed;
    }
    case 'boolean':
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      return fail(variable, 'must be true or false', raw);
    case 'enum':
      if (!knob.values.includes(raw))
        fail(variable, `must be one of ${knob.values.join(', ')}`, raw);
      return raw;
    case 'names':
      return [
        ...new Set(
          raw
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== ''),
        ),
      ];
  }
}

/**
 * The `settings` block of the configuration document at `file`, checked against the catalogue;
 * an empty block when the document has none. Read once, at start-up, before anything connects.
 */
export function readDocumentSettings(file: string): DocumentSettings {
  if (!existsSync(file)) fail('CONFIG_FILE', 'must name a readable file', file);
  let document: unknown;
  try {
    document = parseYamlText(utf8Text(readFileSync(file)), { uniqueKeys: true });
  } catch (error) {
    return fail('CONFIG_FILE', `must be YAML: ${(error as Error).message}`, file);
  }
  const block =
    typeof document === 'object' && document !== null && 'settings' in document
      ? document.settings
      : {};
  const result = settingsSchema.safeParse(block ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = ['settings', ...issue.path.map(String)].join('.');
    return fail('CONFIG_FILE', `${path}: ${issue.message}`, file);
  }
  return result.data;
}

/**
 * The tuning knobs' values, by document key: the configuration document's, else the old
 * environment variable's (read for one release, with a warning naming the document key), else
 * the default. When both set a knob the document wins, so that moving a knob into the document
 * is enough to change it.
 */
export class Knobs {
  readonly warnings: string[] = [];
  private readonly values = new Map<string, KnobValue>();

  constructor(env: Env, document: DocumentSettings) {
    for (const knob of TUNING_KNOBS) {
      const [group = '', name = ''] = knob.key.split('.');
      const inDocument = document[group]?.[name] as KnobValue | undefined;
      const variable = knob.env;
      const raw = variable === undefined ? undefined : envValue(env, variable);
      if (inDocument !== undefined) {
        this.values.set(knob.key, inDocument);
        if (raw !== undefined)
          this.warnings.push(
            `${variable} is ignored: the configuration document sets settings.${knob.key}.`,
          );
      } else if (variable !== undefined && raw !== undefined) {
        this.values.set(knob.key, fromEnv(knob, variable, raw));
        this.warnings.push(
          `${variable} is deprecated and is read for one more release only: set settings.${knob.key} in the configuration document (CONFIG_FILE) instead.`,
        );
      } else this.values.set(knob.key, knob.default);
    }
  }

  integer(key: string): number {
    return this.value(key, 'integer') as number;
  }

  boolean(key: string): boolean {
    return this.value(key, 'boolean') as boolean;
  }

  choice<T extends string>(key: string): T {
    return this.value(key, 'enum') as T;
  }

  names(key: string): string[] {
    return [...(this.value(key, 'names') as readonly string[])];
  }

  private value(key: string, type: TuningKnob['type']): KnobValue {
    if (BY_KEY.get(key)?.type !== type) throw new Error(`No ${type} knob settings.${key}`);
    return this.values.get(key)!;
  }
}
