import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';
import { type PromptDefinition } from '../prompts/prompt-definition';
import { type ResourceTemplateDefinition } from '../resources/resource-definition';
import { type ToolDefinition } from '../tools/tool-definition';

/**
 * What a rename keeps and what it may change, of one definition:
 * - `shape`: the interface a client calls (a tool's input schema, a prompt's argument names, a
 *   template's variables and type), hashed; stored with a tombstone to find its look-alikes;
 * - `text`: the description, which a rename that hides an attack rewrites in part;
 * - `body`: everything but the name, hashed: the same body under another name is a plain rename.
 */
export interface RenameView {
  shape: string;
  text: string;
  body: string;
}

export function toolRenameView(tool: ToolDefinition): RenameView {
  const { name: _name, ...body } = tool;
  return {
    shape: digest(tool.inputSchema ?? null),
    text: tool.description ?? '',
    body: digest(body),
  };
}

export function promptRenameView(prompt: PromptDefinition): RenameView {
  const { name: _name, ...body } = prompt;
  const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
  return {
    shape: digest(args.map((argument) => [argument.name, argument.required ?? false])),
    text: prompt.description ?? '',
    body: digest(body),
  };
}

export function templateRenameView(template: ResourceTemplateDefinition): RenameView {
  const { uriTemplate, name: _name, ...body } = template;
  return {
    shape: digest([templateVariables(uriTemplate), template.mimeType ?? null]),
    text: template.description ?? '',
    body: digest(body),
  };
}

/** The variable names of an RFC 6570 template, in order: `{+path}`, `{?q,page}`. */
function templateVariables(uriTemplate: string): string[] {
  const names: string[] = [];
  for (const [, expression] of uriTemplate.matchAll(/\{([^}]{0,256})\}/g))
    for (const spec of expression!.replace(/^[+#./;?&]/, '').split(','))
      names.push(spec.replace(/(\*|:\d+)$/, ''));
  return names;
}

const WORD = /[\p{L}\p{N}]{3,}/gu;
/** The share of the old description's words a new one must keep to read as the same text. */
const KEPT_WORDS = 0.6;

/**
 * Whether `now` reads as `before` edited rather than written anew: most of the words of `before`
 * (three letters or more, any case) are still in it. An empty `before` is kept by anything.
 */
export function keepsText(before: string, now: string): boolean {
  const old = new Set(before.toLowerCase().match(WORD) ?? []);
  if (old.size === 0) return true;
  const words = new Set(now.toLowerCase().match(WORD) ?? []);
  let kept = 0;
  for (const word of old) if (words.has(word)) kept += 1;
  return kept / old.size >= KEPT_WORDS;
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
