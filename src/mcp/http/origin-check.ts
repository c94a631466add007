import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type IncomingHttpHeaders } from 'node:http';
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { jsonRpcError } from '../protocol/mcp-errors';
import { hostAllowed, originAllowed, type OriginPolicy } from './origin-policy';

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

/** Why a request to an MCP endpoint is refused for its Origin or Host (403), or null. */
export function originRefusal(headers: IncomingHttpHeaders, policy: OriginPolicy): string | null {
  if (!originAllowed(headers.origin, policy)) return 'Origin not allowed';
  if (!hostAllowed(headers.host, policy)) return 'Host not allowed';
  return null;
}
