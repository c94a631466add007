import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type AppSession, type McpApps } from './mcp-apps.service';

/**
 * Serves the per-tool UI resources on a session's SDK server. Call before the server connects:
 * it declares the `resources` capability. Portico serves no resource templates.
 */
export function serveAppResources(server: Server, apps: McpApps, session: AppSession): void {
  server.registerCapabilities({ resources: {} });
  server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
    apps.listResources(await session.directory(), request.params?.cursor),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    apps.readResource(session, request.params.uri),
  );
}
