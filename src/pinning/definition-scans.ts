import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type PromptDefinition } from '../prompts/prompt-definition';
import { type ResourceTemplateDefinition } from '../resources/resource-definition';
import { type ToolDefinition } from '../tools/tool-definition';
import { type StoredFinding } from './pin-columns';

/** The scanner as one gateway's sync uses it, one function per kind of definition. */
export interface GatewayScans {
  tool(definition: ToolDefinition): StoredFinding[];
  prompt(definition: PromptDefinition): StoredFinding[];
  template(definition: ResourceTemplateDefinition): StoredFinding[];
}

/** Scans the definitions a sync brings that it has not seen before. */
@Injectable()
export class DefinitionScans {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  forGateway(em: EntityManager, gateway: { id: string; slug: string }): GatewayScans {
    return { tool: () => [], prompt: () => [], template: () => [] };
  }
}
