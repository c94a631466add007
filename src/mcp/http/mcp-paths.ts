import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { jsonRpcError } from '../protocol/mcp-errors';
import { type OriginPolicy, originRefusal } from '../../common/http-request';

// What Express applies to the MCP paths it sees (CORS preflights, the older HTTP+SSE transport)
// before anything else: the Origin and Host check McpHttpHandler applies to the rest.

/** What a browser page may send to and read from Portico's endpoints (CORS). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
];

/** What a browser page may read of Portico's answers (CORS). */
export const CORS_EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate'];

/** The Streamable HTTP endpoints, in any case and with a trailing slash, as Express matched them. */
export const STREAMABLE_PATH = /^\/(?:servers\/([^/]+)\/)?mcp\/?$/i;
export const STREAMABLE_METHODS = ['POST', 'GET', 'DELETE'] as const;
export type StreamableMethod = (typeof STREAMABLE_METHODS)[number];
export const ALL_PATH = '/mcp';
export const SERVER_PATH = '/servers/:serverId/mcp';

/** What McpHttpHandler serves, as Express would name the routes (`POST /servers/:serverId/mcp`). */
export const STREAMABLE_HTTP_ROUTES = STREAMABLE_METHODS.flatMap((method) =>
  [ALL_PATH, SERVER_PATH].map((path) => `${method} ${path}`),
);

/**
 * The MCP endpoints: Streamable HTTP, and the older transport's stream and message URLs; as Express
 * routes them, in any case and with a trailing slash.
 */
const MCP_PATH = /^\/(servers\/[^/]+\/)?(mcp|sse|messages)\/?$/i;

export function isMcpPath(path: string): boolean {
  return MCP_PATH.test(path);
}

/**
 * Express middleware that refuses, on the MCP paths, a foreign Origin or Host with 403 before
 * anything else looks at the request: a request from a rebinding page must not learn from a 401,
 * 400 or 413 that it reached Portico, and the spec names 403 for it.
 */
export function originCheck(policy: OriginPolicy): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    if (!isMcpPath(request.path)) {
      next();
      return;
    }
    const refusal = originRefusal(request.headers, policy);
    if (refusal === null) {
      next();
      return;
    }
    response.status(403).json(jsonRpcError(null, ProtocolErrorCode.InvalidRequest, refusal));
  };
}
