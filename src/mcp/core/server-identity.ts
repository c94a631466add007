import {
  type DiscoverResult,
  SERVER_INFO_META_KEY,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import { type ScopeDirectory } from '../directory/scope-directory';
import { MODERN_VERSIONS } from '../protocol/mcp-request';

/**
 * What every Portico endpoint offers, whatever its members, in both eras: lists can grow after
 * a client first looks (a 2025 session's GET stream or a 2026-07-28 listen hears of it), and
 * resources are followed upstream for `resources/subscribe` and a listen's
 * `resourceSubscriptions` alike.
 */
export const SERVER_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

/** `server/discover` of a scope; `extra` adds what its members bring (MCP Apps' extension). */
export function discoverResult(
  directory: ScopeDirectory,
  extra: ServerCapabilities,
): DiscoverResult {
  return {
    supportedVersions: [...MODERN_VERSIONS],
    capabilities: { ...SERVER_CAPABILITIES, ...extra },
    _meta: { [SERVER_INFO_META_KEY]: directory.serverInfo },
  };
}
