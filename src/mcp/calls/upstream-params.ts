import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSIONS } from '../../upstream/protocol-era';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { type McpCall } from '../mcp-call';

/** The reserved `_meta` keys of the 2026-07-28 envelope: Portico states its own upstream. */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/**
 * The params of a request forwarded upstream for a modern client. The client's envelope is its
 * request to Portico, not to the upstream: its keys are dropped (a 2025 upstream must never see a
 * modern claim), and what a 2026-07-28 upstream needs per request (the client's capabilities and
 * log level) is stated again for the connection to put in its own envelope. The rest of `_meta`
 * (progress token, trace context) passes as it came. A 2025 session's params pass unchanged.
 */
export function upstreamParams(
  call: McpCall,
  connection: UpstreamConnection,
  params: Record<string, unknown>,
): Record<string, unknown> {
  if (call.era !== 'modern') return params;
  const given = params._meta;
  const meta: Record<string, unknown> = {};
  if (given !== null && typeof given === 'object')
    for (const [key, value] of Object.entries(given))
      if (!key.startsWith(ENVELOPE_PREFIX)) meta[key] = value;
  if (MODERN_PROTOCOL_VERSIONS.includes(connection.protocolVersion ?? '')) {
    meta[CLIENT_CAPABILITIES_META_KEY] = call.clientCapabilities;
    if (call.logLevel) meta[LOG_LEVEL_META_KEY] = call.logLevel;
  }
  const { _meta: _dropped, ...rest } = params;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}
