import { createHash } from 'node:crypto';
import { type Prompt as McpPrompt } from '@modelcontextprotocol/server';

/** A served prompt as a scope lists it. */
export interface DirectoryPrompt {
  /** The listed name: virtual, or the upstream's under original naming. */
  name: string;
  gatewayId: string;
  gatewaySlug: string;
  originalName: string;
  definition: McpPrompt;
}

/** The prompts one scope serves, by listed name. */
export class PromptDirectory {
  readonly byName: ReadonlyMap<string, DirectoryPrompt>;
  readonly definitions: readonly McpPrompt[];
  readonly fingerprint: string;

  constructor(readonly prompts: readonly DirectoryPrompt[]) {
    this.byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
    this.definitions = prompts.map((prompt) => prompt.definition);
    const hash = createHash('sha256');
    for (const definition of this.definitions) hash.update(JSON.stringify(definition)).update('\n');
    this.fingerprint = hash.digest('hex');
  }
}
