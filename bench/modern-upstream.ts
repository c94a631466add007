import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * The bench's 2026-07-28 upstream: SDK v2's stateless `createMcpHandler`, refusing 2025 traffic,
 * with the tools of the 2025 bench upstream (`echoTool` of test/fixtures/upstream-server.ts):
 * each answers its name as text and its arguments as structured content. Resolves to its URL.
 */
export async function startModernUpstream(names: string[], port = 0): Promise<string> {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'bench', version: '1.0.0' });
      for (const name of names)
        server.registerTool(
          name,
          { description: `${name} of bench`, inputSchema: z.looseObject({}) },
          (args) => ({
            content: [{ type: 'text', text: `bench:${name}` }],
            structuredContent: { upstream: 'bench', tool: name, args },
          }),
        );
      return server;
    },
    { legacy: 'reject' },
  );
  const serve = toNodeHandler(handler);
  const http = createServer((req, res) => void serve(req, res));
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}
