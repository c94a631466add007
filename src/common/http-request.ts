import { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

// What Portico checks of an HTTP request before any route reads it: where it goes, what it sends
// and accepts, and whether its Origin and Host are Portico's own (DNS rebinding).

/** The path of a request target: origin-form (`/mcp?x`), or absolute-form as proxies may send. */
export function pathOf(target: string): string {
  if (!target.startsWith('/')) {
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  }
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

export function accepts(request: IncomingMessage, type: string): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes(type) || accept.includes('*/*');
}

/** Whether the body is declared `application/json` (parameters such as charset aside). */
export function isJson(request: IncomingMessage): boolean {
  const type = request.headers['content-type'] ?? '';
  const end = type.indexOf(';');
  return (end === -1 ? type : type.slice(0, end)).trim().toLowerCase() === 'application/json';
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

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
  // Nothing but a port after the name: `[::1].evil.example` is not loopback.
  if (!/^(:\d+)?$/.test(name.slice(hostname.length))) return false;
  return (
    LOOPBACK.has(hostname) ||
    policy.allowedHosts.includes(name) ||
    policy.allowedHosts.includes(hostname)
  );
}

/** Why a request to an MCP endpoint is refused for its Origin or Host (403), or null. */
export function originRefusal(headers: IncomingHttpHeaders, policy: OriginPolicy): string | null {
  if (!originAllowed(headers.origin, policy)) return 'Origin not allowed';
  if (!hostAllowed(headers.host, policy)) return 'Host not allowed';
  return null;
}
