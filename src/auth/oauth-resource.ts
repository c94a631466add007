import { type McpTarget } from './mcp-access';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const SERVER_PATH = new RegExp(`^/servers/(${UUID})/mcp$`);

/**
 * The MCP endpoint an RFC 8707 `resource` names on this Portico, or null when it names anything
 * else: another host, another path, or a URL with a query or fragment (RFC 8707 §2 forbids the
 * fragment; a query would make two names for one endpoint).
 */
export function resourceTarget(resource: string, publicUrl: string): McpTarget | null {
  let url: URL;
  let base: URL;
  try {
    url = new URL(resource);
    base = new URL(publicUrl);
  } catch {
    return null;
  }
  if (url.origin !== base.origin || url.search !== '' || url.hash !== '') return null;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${prefix}/`)) return null;
  const path = url.pathname.slice(prefix.length).replace(/\/$/, '');
  if (path === '/mcp') return { kind: 'all' };
  const match = SERVER_PATH.exec(path);
  return match ? { kind: 'server', serverId: match[1]!.toLowerCase() } : null;
}
