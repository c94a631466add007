import {
  type ClientCapabilities,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { declaresCapability } from '../../upstream/client-capabilities';
import { type RequestStateBinding } from '../core/request-state-seal';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';

/** MCP's URL elicitation error (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;
/** URL elicitations one round carries at most. */
const MAX_URL_ELICITATIONS = 16;

/** What a rerun's state is bound to: the client's own request, as it names the tool. */
export function rerunBinding(
  principal: Principal,
  scope: McpScope,
  message: JSONRPCRequest,
): RequestStateBinding {
  const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
  return {
    subject: principal.subject,
    scope: scopeKey(scope),
    gatewayId: '',
    method: 'tools/call',
    target: typeof params.name === 'string' ? params.name : '',
    arguments: params.arguments,
  };
}

/**
 * A URL elicitation the call needs (-32042, an upstream's or Portico's own for an OAuth upstream
 * the user has not connected) as a URL-mode input round for a client that declared URL
 * elicitation; its state runs the call again once the user is done. Null: the error stands.
 */
export function urlRound(
  response: JSONRPCResponse,
  declared: ClientCapabilities,
  rerunState: () => string,
): JSONRPCResponse | null {
  if (!('error' in response) || response.error.code !== URL_ELICITATION_REQUIRED) return null;
  if (!declaresCapability(declared, { elicitation: { url: {} } })) return null;
  const elicitations = (response.error.data as { elicitations?: unknown } | undefined)
    ?.elicitations;
  if (!Array.isArray(elicitations) || elicitations.length === 0) return null;
  const inputRequests: Record<string, unknown> = {};
  for (const [index, elicitation] of elicitations.slice(0, MAX_URL_ELICITATIONS).entries()) {
    const { url, message } = (elicitation ?? {}) as { url?: unknown; message?: unknown };
    if (typeof url !== 'string') return null;
    inputRequests[`url_${index + 1}`] = {
      method: 'elicitation/create',
      params: { mode: 'url', url, message: typeof message === 'string' ? message : url },
    };
  }
  return {
    jsonrpc: '2.0',
    id: response.id,
    result: { resultType: 'input_required', inputRequests, requestState: rerunState() },
  } as JSONRPCResponse;
}
