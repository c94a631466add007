import {
  type ClientCapabilities,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { declaresCapability } from '../../upstream/client-capabilities';
import { type RequestStateBinding } from '../core/request-state-seal';
import { isJsonObject } from '../../common/json-value';
import {
  jsonRpcError,
  MISSING_CLIENT_CAPABILITY,
  UPSTREAM_PROTOCOL_ERROR,
  UPSTREAM_UNAVAILABLE,
} from '../protocol/mcp-errors';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';

/** MCP's URL elicitation error (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;
/** URL elicitations one round carries at most. */
const MAX_URL_ELICITATIONS = 16;

/**
 * What a rerun's state is bound to: the client's own request (one that takes input rounds), as it
 * names its tool, prompt or resource.
 */
export function rerunBinding(
  principal: Principal,
  scope: McpScope,
  message: JSONRPCRequest,
): RequestStateBinding {
  const params = (message.params ?? {}) as { name?: unknown; uri?: unknown; arguments?: unknown };
  const target = message.method === 'resources/read' ? params.uri : params.name;
  return {
    subject: principal.subject,
    scope: scopeKey(scope),
    gatewayId: '',
    method: message.method as RequestStateBinding['method'],
    target: typeof target === 'string' ? target : '',
    arguments: params.arguments,
  };
}

/** The capability a URL round needs of its client. */
const URL_ELICITATION: ClientCapabilities = { elicitation: { url: {} } };

/**
 * What a 2026-07-28 client gets for a URL elicitation the request needs (-32042, an upstream's or
 * Portico's own for an OAuth upstream the user has not connected; the revision retired the code):
 * a URL-mode input round when it declared URL elicitation, whose state (`rerunState`) runs the
 * request again once the user is done; -32021 naming that capability when it did not, as for any
 * other capability a request needs; -32010 for a request that `takesRounds` not (the upstream
 * cannot be used until the user is done); the message and the
 * elicitations' links stay in each. An elicitation that names no URL is the upstream's fault.
 * Null for any other answer.
 */
export function urlRound(
  response: JSONRPCResponse,
  declared: ClientCapabilities,
  takesRounds: boolean,
  rerunState: () => string,
): JSONRPCResponse | null {
  if (!('error' in response) || response.error.code !== URL_ELICITATION_REQUIRED) return null;
  const { message, data } = response.error;
  const kept = isJsonObject(data) ? data : {};
  if (!declaresCapability(declared, URL_ELICITATION))
    return jsonRpcError(response.id ?? null, MISSING_CLIENT_CAPABILITY, message, {
      ...kept,
      requiredCapabilities: URL_ELICITATION,
    });
  if (!takesRounds) return jsonRpcError(response.id ?? null, UPSTREAM_UNAVAILABLE, message, kept);
  const inputRequests = urlInputRequests(data);
  if (!inputRequests)
    return jsonRpcError(
      response.id ?? null,
      UPSTREAM_PROTOCOL_ERROR,
      `The upstream asked for a URL elicitation that names no URL: ${message}`,
    );
  return {
    jsonrpc: '2.0',
    id: response.id,
    result: { resultType: 'input_required', inputRequests, requestState: rerunState() },
  } as JSONRPCResponse;
}

/** A -32042's elicitations as the input requests of a round; null when one names no URL. */
function urlInputRequests(data: unknown): Record<string, unknown> | null {
  const elicitations = isJsonObject(data) ? data.elicitations : undefined;
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
  return inputRequests;
}
