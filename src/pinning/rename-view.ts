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

/** The words a rename comparison reads in a text: three letters or more, any case. */
export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(WORD) ?? []);
}

/**
 * Whether `now` reads as `before` edited rather than written anew: most of the words of `before`
 * (wordsOf) are still in it; an empty `before` is kept by anything. Stops as soon as the answer is
 * known; each word looked up is counted in `spent`.
 */
export function keepsWords(
  before: readonly string[],
  now: ReadonlySet<string>,
  spent: { lookups: number },
): boolean {
  let needed = Math.ceil(before.length * KEPT_WORDS);
  if ((needed - 1) / before.length >= KEPT_WORDS) needed -= 1;
  let kept = 0;
  let missed = 0;
  for (const word of before) {
    if (kept >= needed) break;
    if (missed > before.length - needed) return false;
    spent.lookups += 1;
    if (now.has(word)) kept += 1;
    else missed += 1;
  }
  return kept >= needed;
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
