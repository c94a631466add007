import { withStandardAnnotations } from './policy-input';

/**
 * A tool as every policy sees it, whichever route reached it (virtual name, original naming, a
 * server's renaming override, a hashed app name, tool search, REST invoke): its canonical
 * identity and what its upstream declares. The CEL variable `tool` is this object as it is.
 */
export interface PolicyTool {
  id: string;
  /** The canonical virtual name, `gateway_slug + SEP + original_name`, on every endpoint. */
  name: string;
  /** The name this endpoint lists it under (a renaming override, original naming, a hashed name). */
  listedName: string;
  originalName: string;
  gateway: string;
  title: string;
  /** The upstream's annotations; an override may only make them more cautious. */
  annotations: Record<string, unknown>;
  hash: string;
  pinnedHash: string;
}

/** What a stored tool contributes to its policy record. */
export interface PolicyToolFacts {
  id: string;
  gatewaySlug: string;
  originalName: string;
  title: string | null;
  annotations: Record<string, unknown> | null;
  contentHash: string;
  pinnedHash: string | null;
}

/**
 * The cautious value of each hint: a destructive, open-world tool that is neither read-only nor
 * idempotent is what MCP assumes when a hint is absent.
 */
const CAUTIOUS_HINTS: Readonly<Record<string, boolean>> = {
  destructiveHint: true,
  openWorldHint: true,
  readOnlyHint: false,
  idempotentHint: false,
};

/**
 * Whether setting `key` to `value` over the upstream's annotations makes the tool look less
 * cautious than the upstream says (a read-only claim, a destructive tool called harmless).
 */
export function weakens(
  upstream: Record<string, unknown> | null,
  key: string,
  value: unknown,
): boolean {
  const cautious = CAUTIOUS_HINTS[key];
  return cautious !== undefined && value !== cautious && upstream?.[key] !== value;
}

/**
 * The policy record of a stored tool. `overridden` are the annotations a server's override sets:
 * only the hints they make more cautious reach the policy, so no override can lift a policy that
 * reads them.
 */
export function policyToolOf(
  tool: PolicyToolFacts,
  name: string,
  listedName: string,
  overridden: Record<string, unknown> | null = null,
): PolicyTool {
  const annotations = withStandardAnnotations(tool.annotations);
  if (overridden)
    for (const [key, value] of Object.entries(overridden))
      if (CAUTIOUS_HINTS[key] === value) annotations[key] = value;
  return {
    id: tool.id,
    name,
    listedName,
    originalName: tool.originalName,
    gateway: tool.gatewaySlug,
    title: tool.title ?? '',
    annotations,
    hash: tool.contentHash,
    pinnedHash: tool.pinnedHash ?? '',
  };
}
