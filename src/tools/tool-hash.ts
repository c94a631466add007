import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';

export const TOOL_HASH_LENGTH = 12;
const HASHED_NAME = /^([0-9a-f]{12})_(.+)$/;

/** First 12 hex of sha256(gateway_id + "\0" + original_name): a tool's stable address. */
export function toolHash(gatewayId: string, originalName: string): string {
  return createHash('sha256')
    .update(`${gatewayId}\0${originalName}`)
    .digest('hex')
    .slice(0, TOOL_HASH_LENGTH);
}

/** `<tool_hash>_<original_name>`, the name an MCP App uses to reach its backend tool. */
export function hashedBackendName(hash: string, originalName: string): string {
  return `${hash}_${originalName}`;
}

export interface HashedBackendName {
  hash: string;
  originalName: string;
}

export function parseHashedBackendName(name: string): HashedBackendName | null {
  const match = HASHED_NAME.exec(name);
  return match ? { hash: match[1]!, originalName: match[2]! } : null;
}

/**
 * Whether the tool with the name's hash answers to it: under its own upstream name, and only if
 * apps may call it.
 */
export function answersToHashedName(
  tool: { originalName: string; visibility: readonly string[] },
  name: HashedBackendName,
): boolean {
  return tool.originalName === name.originalName && tool.visibility.includes('app');
}

export interface ToolDefinitionContent {
  title?: string | null;
  description?: string | null;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  meta?: unknown;
}

/** sha256 over the parts of a tool definition that a sync compares. */
export function contentHash(tool: ToolDefinitionContent): string {
  return createHash('sha256')
    .update(
      canonicalJson([
        tool.title ?? null,
        tool.description ?? '',
        tool.inputSchema ?? null,
        tool.outputSchema ?? null,
        tool.annotations ?? null,
        tool.meta ?? null,
      ]),
    )
    .digest('hex');
}
