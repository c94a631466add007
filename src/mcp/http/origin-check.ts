import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { jsonRpcError } from './jsonrpc';
import { hostAllowed, originAllowed, type OriginPolicy } from './origin-policy';

/** The MCP endpoints, as Express paths. */
export const MCP_PATHS = ['/mcp', '/servers/:serverId/mcp'];

/**
 * Express middleware for the MCP paths that refuses a foreign Origin or Host with 403 before
 * anything else looks at the request: a request from a rebinding page must not learn from a 401,
 * 400 or 413 that it reached Portico, and the spec names 403 for it.
 */
export function originCheck(policy: OriginPolicy): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const refusal = !originAllowed(request.headers.origin, policy)
      ? 'Origin not allowed'
      : !hostAllowed(request.headers.host, policy)
        ? 'Host not allowed'
        : null;
    if (refusal === null) {
      next();
      return;
    }
    response.status(403).json(jsonRpcError(null, ErrorCode.InvalidRequest, refusal));
  };
}
