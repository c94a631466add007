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
