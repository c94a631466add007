import { Injectable } from '@nestjs/common';
import { Directories } from '../mcp/directory/directories.service';
import { searchHit, type SearchHit } from '../mcp/search/tool-search.tool';
import { ToolSearchService } from '../mcp/search/tool-search.service';

/** Longest request the page accepts; tool_search itself takes any length. */
export const ASK_LIMIT = 500;
const HITS = 10;

/** One hit as the tools page shows it: tool_search's brief, and where to open the tool. */
export interface AdminSearchHit extends SearchHit {
  id: string;
  gatewayId: string;
  gatewaySlug: string;
}

/**
 * The admin tools page's "ask for a tool": the ranking tool_search applies, over every enabled
 * tool the model may see, so an operator can try a request and see what a model would be shown.
 */
@Injectable()
export class AdminToolSearch {
  constructor(
    private readonly directories: Directories,
    private readonly search: ToolSearchService,
  ) {}

  async ask(request: string, gatewayId: string): Promise<AdminSearchHit[]> {
    const directory = (await this.directories.get({ kind: 'all' }))?.tools;
    if (!directory) return [];
    const gateway = gatewayId
      ? directory.tools.find((tool) => tool.gatewayId === gatewayId)?.gatewaySlug
      : undefined;
    if (gatewayId && gateway === undefined) return [];
    const found = await this.search.rank(
      directory,
      request,
      HITS,
      gateway === undefined ? {} : { gateway },
    );
    return found.flatMap((definition) => {
      const tool = directory.byName.get(definition.name);
      return tool
        ? [
            {
              ...searchHit(definition),
              id: tool.id,
              gatewayId: tool.gatewayId,
              gatewaySlug: tool.gatewaySlug,
            },
          ]
        : [];
    });
  }
}
