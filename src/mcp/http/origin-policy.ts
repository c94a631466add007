import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type IncomingHttpHeaders } from 'node:http';
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { jsonRpcError } from '../protocol/mcp-errors';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** What a browser page may send to and read from Portico's endpoints (CORS). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
];
export const CORS_EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate'];

export interface OriginPolicy {
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
}

/**
 * DNS-rebinding defence for the MCP endpoints. A browser page may only call them from an allowed
 * origin (PUBLIC_URL, ALLOWED_ORIGINS, localhost); requests without Origin come from non-browser
 * clients and pass.
 */
export function originAllowed(origin: string | undefined, policy: OriginPolicy): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return policy.allowedOrigins.includes(url.origin) || LOOPBACK.has(url.hostname);
}

/** The Host header must name Portico itself: PUBLIC_URL's host, ALLOWED_HOSTS, or loopback. */
export function hostAllowed(host: string | undefined, policy: OriginPolicy): boolean {
  if (!host) return false;
  const name = host.toLowerCase();
  const hostname = name.startsWith('[')
    ? name.slice(0, name.indexOf(']') + 1)
    : name.replace(/:\d+$/, '');
  return (
    LOOPBACK.has(hostname) ||
    policy.allowedHosts.includes(name) ||
    policy.allowedHosts.includes(hostname)
  );
}

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
