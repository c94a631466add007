import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Principal } from '../../auth/principal';
import { type McpScope } from './mcp-scope';

/**
 * An HTTP request to an MCP endpoint as the edge (McpHttpHandler) hands it on: its Origin and
 * Host checked, its caller authorized, for the scope its path names.
 */
export interface Authorized {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly scope: McpScope;
  readonly principal: Principal;
}
