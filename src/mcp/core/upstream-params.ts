import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSIONS } from '../../upstream/eras/protocol-era';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { type McpCall } from '../protocol/mcp-call';

/** The reserved `_meta` keys of the 2026-07-28 envelope: Portico states its own upstream. */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/**
 * The params of a request forwarded upstream. What a 2026-07-28 upstream needs per request (the
 * client's capabilities and log level: the modern request's own, or a 2025 session's from
 * `initialize` and `logging/setLevel`) is stated again for the connection to put in its envelope,
 * and no reserved key the client put in `_meta` stands in for it: a modern client's envelope is
 * its request to Portico, and a 2025 request declares nothing of its own. A 2025 upstream never
 * sees a modern client's envelope keys. The rest of `_meta` (progress token, trace context)
 * passes as it came; a 2025 session's params go to a 2025 upstream unchanged.
 */
export function upstreamParams(
  call: McpCall,
  connection: UpstreamConnection,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const modernUpstream = MODERN_PROTOCOL_VERSIONS.includes(connection.protocolVersion ?? '');
  if (call.era !== 'modern' && !modernUpstream) return params;
  const given = params._meta;
  const meta: Record<string, unknown> = {};
  if (given !== null && typeof given === 'object')
    for (const [key, value] of Object.entries(given))
      if (!key.startsWith(ENVELOPE_PREFIX)) meta[key] = value;
  if (modernUpstream) {
    meta[CLIENT_CAPABILITIES_META_KEY] = call.clientCapabilities;
    if (call.logLevel) meta[LOG_LEVEL_META_KEY] = call.logLevel;
  }
  const { _meta: _dropped, ...rest } = params;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}
