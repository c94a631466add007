import { type JSONRPCMessage, type JSONRPCResponse } from '@modelcontextprotocol/client';
import { nestingDepth } from '../../common/json-value';
import { UpstreamFailure } from '../upstream-error';

/** Whether a message answers a request. */
export function isJsonRpcResponse(message: JSONRPCMessage): message is JSONRPCResponse {
  return 'id' in message && ('result' in message || 'error' in message);
}

/** How large and how deeply nested a message from an upstream may be. */
export interface MessageLimits {
  /** UPSTREAM_MESSAGE_LIMIT_BYTES: one JSON body, event or stdio line. */
  maxBytes: number;
  /** JSON_MAX_DEPTH, counted from the message itself. */
  maxDepth: number;
}

/** The members of list results that hold the listed entries (tools, resources, prompts). */
const LIST_MEMBERS = ['tools', 'resources', 'resourceTemplates', 'prompts'] as const;

/** A list entry's depth is counted from the message: message, result, the array, the entry. */
const ENTRY_LEVEL = 3;

/**
 * Marks a list entry that was too deeply nested to keep: only its name (or URI) is left, and the
 * reason, which whoever admits the list's entries reports for it.
 */
const REFUSED = Symbol('refused list entry');

/** Why the entry was refused when it arrived, or null for an entry as it was sent. */
export function refusalOf(entry: unknown): string | null {
  return typeof entry === 'object' && entry !== null && REFUSED in entry
    ? String(entry[REFUSED])
    : null;
}

/** A list entry refused before it was listed (an adapter's own bound): its name and the reason. */
export function refusedDefinition(name: string, reason: string): object {
  return { name, [REFUSED]: reason };
}

/**
 * An upstream's message checked against JSON_MAX_DEPTH before anything walks it. A list result
 * whose entries alone are too deep keeps the rest: each such entry is cut to its name and the
 * reason (see refusalOf), so that one hostile definition does not fail the whole list. Anything
 * else too deep is refused whole, as the upstream's protocol failure.
 */
export function boundMessage(
  message: JSONRPCMessage,
  maxDepth: number,
): JSONRPCMessage | UpstreamFailure {
  if (nestingDepth(message, maxDepth) <= maxDepth) return message;
  const result = 'result' in message ? (message.result as Record<string, unknown>) : null;
  if (typeof result === 'object' && result !== null) {
    const budget = maxDepth - ENTRY_LEVEL;
    for (const member of LIST_MEMBERS) {
      const entries = result[member];
      if (!Array.isArray(entries)) continue;
      result[member] = entries.map((entry: unknown) =>
        nestingDepth(entry, budget) > budget ? refusedEntry(entry, budget, maxDepth) : entry,
      );
    }
    if (nestingDepth(message, maxDepth) <= maxDepth) return message;
  }
  return new UpstreamFailure(
    'protocol',
    `the upstream sent a message nested more than ${maxDepth} levels deep, past the limit (JSON_MAX_DEPTH)`,
  );
}

function refusedEntry(entry: unknown, budget: number, maxDepth: number): object {
  const kept: Record<string | symbol, unknown> = {
    [REFUSED]: `the definition is nested more than ${budget} levels deep, past the limit (JSON_MAX_DEPTH ${maxDepth}, counted from its message)`,
  };
  for (const key of ['name', 'uri', 'uriTemplate']) {
    const value = (entry as Record<string, unknown>)[key];
    if (typeof value === 'string') kept[key] = value;
  }
  return kept;
}
