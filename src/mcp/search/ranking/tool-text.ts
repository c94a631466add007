import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type WeightedText } from './bm25';

/** How much a term counts by where it stands in a tool's definition. */
export interface FieldWeights {
  name: number;
  /** Title and the description's first sentence: what the tool does, said once. */
  summary: number;
  /** The rest of the description: usage notes, examples, caveats. */
  details: number;
  argumentName: number;
  argumentDescription: number;
}

export const FIELD_WEIGHTS: FieldWeights = {
  name: 3,
  summary: 2,
  details: 0.5,
  argumentName: 1,
  argumentDescription: 0.5,
};

/** A description's first sentence, and the rest, without markdown emphasis, headings or quotes. */
export function splitDescription(description: string): { summary: string; details: string } {
  const text = description
    .replace(/\*+|`+|^[#>\s]+/gm, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const end = text.search(/[.!?](\s|$)|\s-\s/);
  return end < 0
    ? { summary: text, details: '' }
    : { summary: text.slice(0, end), details: text.slice(end + 1).trim() };
}

/** The one-line description a search hit shows: the first sentence, at most `max` characters. */
export function oneLine(description: string | undefined, max = 160): string {
  const sentence = splitDescription(description ?? '').summary;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).trimEnd()}…`;
}

function argumentEntries(tool: McpTool): [string, string][] {
  const properties = (tool.inputSchema as { properties?: unknown } | null)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, unknown>).map(([name, schema]) => {
    const description = (schema as { description?: unknown } | null)?.description;
    return [name, typeof description === 'string' ? description : ''];
  });
}

/** What BM25 ranks a tool by: name, title, description, argument names and descriptions. */
export function lexicalFields(
  tool: McpTool,
  weights: FieldWeights = FIELD_WEIGHTS,
): WeightedText[] {
  const { summary, details } = splitDescription(tool.description ?? '');
  const fields: WeightedText[] = [
    { text: tool.name, weight: weights.name },
    { text: summary, weight: weights.summary },
    { text: details, weight: weights.details },
  ];
  for (const title of [tool.title, tool.annotations?.title])
    if (typeof title === 'string') fields.push({ text: title, weight: weights.summary });
  for (const [name, text] of argumentEntries(tool)) {
    fields.push({ text: name, weight: weights.argumentName });
    if (text) fields.push({ text, weight: weights.argumentDescription });
  }
  return fields;
}

/** What the semantic ranker embeds of a tool: its name in words, title and summary. */
export function semanticText(tool: McpTool): string {
  const title = tool.title ?? tool.annotations?.title;
  return [tool.name, title, splitDescription(tool.description ?? '').summary]
    .filter((part) => typeof part === 'string' && part !== '')
    .join('. ');
}

/** Most characters of a description an embeddings provider is sent. */
const PROVIDER_DESCRIPTION = 1_000;

/** What an embeddings provider embeds of a tool: name, title and the start of its description. */
export function providerText(tool: McpTool): string {
  const title = tool.title ?? tool.annotations?.title;
  const description = (tool.description ?? '').replace(/\s+/g, ' ').trim();
  return [tool.name, title, description.slice(0, PROVIDER_DESCRIPTION)]
    .filter((part) => typeof part === 'string' && part !== '')
    .join('\n');
}
