import { Injectable } from '@nestjs/common';
import {
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
} from '@modelcontextprotocol/server';
import { McpSettings } from '../../config/slices/mcp.settings';
import { invalidParams } from '../protocol/mcp-errors';
import { type McpRequest, type Served, type UpstreamRef } from '../protocol/mcp-request';
import { Continuation, type RoundTarget } from './continuation';
import { paginate } from '../protocol/paginate';
import { isInputRequired, UpstreamClient } from '../../upstream/upstream-client';
import { resultItems } from '../../upstream/upstream-lists';
import { type ScopeDirectory } from '../directory/scope-directory';

/** What `completion/complete` completes, as the client names it. */
type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

const NO_COMPLETION: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/** prompts/list, prompts/get, and completion/complete of prompt and template arguments. */
@Injectable()
export class PromptCalls {
  constructor(
    private readonly mcpSettings: McpSettings,
    private readonly continuation: Continuation,
    private readonly client: UpstreamClient,
  ) {}

  list(directory: ScopeDirectory, cursor?: string): ListPromptsResult {
    const page = paginate(directory.prompts.definitions, cursor, this.mcpSettings.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    return { prompts: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  async get(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<GetPromptResult> {
    const params = request.params;
    const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') throw invalidParams('prompts/get needs a prompt name');
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
      throw invalidParams('prompts/get arguments must be an object');
    const prompt = directory.prompts.byName.get(name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
    served.gateway = prompt.gatewaySlug;
    const round: RoundTarget = {
      gatewayId: prompt.gatewayId,
      method: 'prompts/get',
      target: prompt.originalName,
      arguments: args,
    };
    const continued = request.resume ? this.continuation.open(request, round) : null;
    const answer = (await this.client.request(
      prompt.gatewayId,
      request.affinity,
      'prompts/get',
      { ...params, ...continued?.upstream, name: prompt.originalName },
      request,
    )) as GetPromptResult;
    if (isInputRequired(answer))
      return (continued ?? this.continuation.open(request, round)).answer(answer);
    // Its messages name resources as the client reads them.
    const messages = resultItems<GetPromptResult['messages'][number]>(
      answer,
      'prompts/get',
      'messages',
    ).map((message) => directory.resources.clientResult(prompt.gatewaySlug, message));
    return { ...answer, messages };
  }

  /**
   * Asks the upstream that owns the prompt or template, under its own name for it. An upstream
   * that offers no completions has none to give.
   */
  async complete(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<CompleteResult> {
    const params = request.params;
    const { ref } = (params ?? {}) as { ref?: CompletionRef };
    let owner: UpstreamRef;
    let upstreamRef: CompletionRef;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const prompt = directory.prompts.byName.get(ref.name);
      if (!prompt) throw invalidParams(`Unknown prompt: ${ref.name}`);
      owner = prompt;
      upstreamRef = { type: 'ref/prompt', name: prompt.originalName };
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const template = directory.resources.byTemplate.get(ref.uri);
      if (!template) throw invalidParams(`Unknown resource template: ${ref.uri}`);
      owner = template;
      upstreamRef = { type: 'ref/resource', uri: template.upstreamTemplate };
    } else {
      throw invalidParams('completion/complete needs a ref/prompt or ref/resource');
    }
    served.gateway = owner.gatewaySlug;
    const { meta, signal } = request;
    return this.client.call(owner.gatewayId, request.affinity, async (connection) =>
      connection.serverCapabilities.completions
        ? connection.request<CompleteResult>(
            'completion/complete',
            { ...params, ref: upstreamRef },
            {
              signal,
              caller: { capabilities: request.affinity.capabilities, logLevel: meta.logLevel },
            },
          )
        : NO_COMPLETION,
    );
  }
}
