import { stringify as stringifyYaml } from 'yaml';
import { parseYamlText } from '../common/yaml-text';
import { z } from 'zod';
import { settingsSchema } from '../config/settings/settings-schema';
import { ConfigDocumentErrorCode, ConfigDocumentException } from './config-document.exception';
import { CONFIG_SECTIONS } from './config-sections';
import { gatewaySlug } from '../gateways/gateway-slug';
import { exceedsValues, isJsonObject } from '../common/json-value';
import { unstorableJson } from '../common/untrusted-text';

export const CONFIG_API_VERSION = 'portico/v1';
export const CONFIG_SCHEMA_ID = 'urn:portico:config:v1';
/** The most values (objects, arrays, scalars) a document may hold: far past any registry's. */
export const MAX_DOCUMENT_VALUES = 500_000;
/** The most of a document's problems an answer lists. */
const MAX_ISSUES = 100;
/** Where a running Portico publishes the schema (no sign-in needed). */
export const CONFIG_SCHEMA_PATH = '/api/v1/config/schema';

/** A parsed document: its sections by key, each an array of that section's items. */
export interface ConfigDocument {
  apiVersion: typeof CONFIG_API_VERSION;
  sections: Map<string, unknown[]>;
  /** Whether it has a `settings` block (the tuning knobs, read from CONFIG_FILE at start-up). */
  hasSettings: boolean;
}

const documentSchema = z
  .object({
    apiVersion: z.literal(CONFIG_API_VERSION).describe('The document format.'),
    settings: settingsSchema.optional(),
    ...Object.fromEntries(
      CONFIG_SECTIONS.map((section) => [
        section.key,
        z
          .array(section.item)
          .optional()
          .describe(`${section.description} Absent: left as it is; present: made to match.`),
      ]),
    ),
  })
  .strict()
  .describe("Portico's configuration as code: `portico apply -f` makes the registry match it.");

/** The document's JSON Schema, for editors and for `GET /api/v1/config/schema`. */
export function configJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(documentSchema, { io: 'input', target: 'draft-2020-12' });
  return {
    ...generated,
    $id: CONFIG_SCHEMA_ID,
    title: 'Portico configuration',
    properties: { $schema: { type: 'string' }, ...(generated.properties as object) },
  };
}

/** Checks a document (already parsed from YAML or JSON) against the schema. */
export function parseConfigDocument(input: unknown): ConfigDocument {
  // Checked before the schema, which would report on (and hold an issue for) every value.
  if (exceedsValues(input, MAX_DOCUMENT_VALUES))
    throw new ConfigDocumentException(
      ConfigDocumentErrorCode.Invalid,
      `The configuration document holds more than ${MAX_DOCUMENT_VALUES} values; split it.`,
    );
  const withoutSchema = isJsonObject(input)
    ? Object.fromEntries(Object.entries(input).filter(([key]) => key !== '$schema'))
    : input;
  const result = documentSchema.safeParse(withoutSchema);
  if (!result.success) {
    const issues = result.error.issues.slice(0, MAX_ISSUES).map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    }));
    const shown = issues
      .slice(0, 10)
      .map((issue) => `${issue.path || '(document)'}: ${issue.message}`)
      .join('; ');
    throw new ConfigDocumentException(
      ConfigDocumentErrorCode.Invalid,
      `The configuration document is not valid: ${shown}.`,
      { issues },
    );
  }
  const data = result.data as Record<string, unknown>;
  // As the REST API refuses them in its own fields: PostgreSQL stores neither.
  const unstorable = unstorableJson([data], 'the document');
  if (unstorable !== null)
    throw new ConfigDocumentException(ConfigDocumentErrorCode.Invalid, `${unstorable}.`);
  const sections = new Map<string, unknown[]>();
  for (const section of CONFIG_SECTIONS) {
    const items = data[section.key];
    if (!Array.isArray(items)) continue;
    assertNamedOnce(section.key, items);
    sections.set(section.key, items);
  }
  return { apiVersion: CONFIG_API_VERSION, sections, hasSettings: data.settings !== undefined };
}

/**
 * A section's items by name, each once: the same name twice would apply both, the last winning,
 * and flip back at the next apply (gateways' names are checked as their slugs, which must differ).
 */
function assertNamedOnce(key: string, items: unknown[]): void {
  const seen = new Map<string, string>();
  for (const item of items) {
    const name = (item as { name?: unknown }).name;
    if (typeof name !== 'string') continue;
    const identity = key === 'gateways' ? gatewaySlug(name) : name;
    const before = seen.get(identity);
    if (before !== undefined)
      throw new ConfigDocumentException(
        ConfigDocumentErrorCode.Invalid,
        before === name
          ? `${key}: '${name}' is named twice.`
          : `${key}: '${before}' and '${name}' make the same slug '${identity}'.`,
      );
    seen.set(identity, name);
  }
}

/** YAML (or JSON, which is YAML) text to a document. */
export function parseConfigText(text: string): ConfigDocument {
  return parseConfigDocument(yamlOf(text));
}

function yamlOf(text: string): unknown {
  try {
    return parseYamlText(text, { uniqueKeys: true });
  } catch (error) {
    throw new ConfigDocumentException(
      ConfigDocumentErrorCode.Invalid,
      `The configuration document is not YAML: ${(error as Error).message}`,
    );
  }
}

export function configYaml(document: Record<string, unknown>, publicUrl: string): string {
  return [
    '# Portico configuration. Apply with: portico apply -f portico.yaml',
    '# Credentials are references: provide the environment variables (or files) they name.',
    `# yaml-language-server: $schema=${publicUrl}${CONFIG_SCHEMA_PATH}`,
    stringifyYaml(document, { lineWidth: 0 }),
  ].join('\n');
}
