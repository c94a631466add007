import { createHash } from 'node:crypto';
import { optionalObject, optionalText, unstorableJson } from '../common/untrusted-text';
import { isJsonObject, type JsonObject } from '../common/json-value';
import { type Admission } from '../resources/resource-definition';
import { DESCRIPTION_LIMIT, TITLE_LIMIT } from '../tools/tool-definition';
import { canonicalJson } from '../common/canonical-json';
import { refusalOf } from '../upstream/transport/message-bounds';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import { type PromptArgument } from './prompt.entity';

/**
 * Prompt names become virtual names as tool names do, so they follow the same rule: clients
 * address them by name, and the name must survive in a URL, a menu and a slash command.
 */
export const PROMPT_NAME_RULE = TOOL_NAME_RULE;
const MAX_ARGUMENTS = 64;
const ARGUMENT_NAME_LIMIT = 128;
const METADATA_BYTES_LIMIT = 64 * 1024;

/** A prompt as Portico stores it, after admission. */
export interface PromptDefinition {
  name: string;
  title: string | null;
  description: string;
  arguments: PromptArgument[];
  meta: JsonObject | null;
}

/** Checks one upstream prompt, which is untrusted input. */
export function admitPrompt(raw: unknown): Admission<PromptDefinition> {
  if (!isJsonObject(raw))
    return { ok: false, key: String(raw), reason: 'the entry is not an object' };
  const name = raw.name;
  if (typeof name !== 'string')
    return { ok: false, key: String(name), reason: 'the name is not a string' };
  if (!PROMPT_NAME_RULE.test(name))
    return { ok: false, key: name, reason: 'the name breaks the rule ^[A-Za-z0-9_.-]{1,128}$' };
  const refused = refusalOf(raw);
  if (refused !== null) return { ok: false, key: name, reason: refused };
  const warnings: string[] = [];
  const args = raw.arguments;
  if (args !== undefined && args !== null && !Array.isArray(args))
    return { ok: false, key: name, reason: 'arguments is not an array' };
  const list = (args ?? []) as unknown[];
  if (list.length > MAX_ARGUMENTS)
    return { ok: false, key: name, reason: `it has more than ${MAX_ARGUMENTS} arguments` };
  const admitted: PromptArgument[] = [];
  for (const argument of list) {
    if (!isJsonObject(argument) || typeof argument.name !== 'string' || argument.name === '')
      return { ok: false, key: name, reason: 'an argument has no name' };
    if (argument.name.length > ARGUMENT_NAME_LIMIT || unstorableJson([argument.name]))
      return {
        ok: false,
        key: name,
        reason: `argument '${argument.name.slice(0, 40)}' has an unusable name`,
      };
    const description = optionalText(
      `argument ${argument.name}`,
      argument.description,
      DESCRIPTION_LIMIT,
      warnings,
    );
    admitted.push({
      name: argument.name,
      ...(description === null ? {} : { description }),
      ...(typeof argument.required === 'boolean' ? { required: argument.required } : {}),
    });
  }
  const meta = optionalObject('_meta', raw._meta, warnings);
  const unstorable = unstorableJson([meta]);
  if (unstorable) return { ok: false, key: name, reason: unstorable };
  if (Buffer.byteLength(canonicalJson(meta)) > METADATA_BYTES_LIMIT)
    return { ok: false, key: name, reason: `its _meta is over ${METADATA_BYTES_LIMIT} bytes` };
  return {
    ok: true,
    key: name,
    definition: {
      name,
      title: optionalText('title', raw.title, TITLE_LIMIT, warnings),
      description: optionalText('description', raw.description, DESCRIPTION_LIMIT, warnings) ?? '',
      arguments: admitted,
      meta,
    },
    warnings,
  };
}

export function promptContentHash(definition: PromptDefinition): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}
