import { scopeKey } from '../protocol/mcp-scope';
import { type RequestOwner } from '../protocol/mcp-request';

/**
 * The key promotions are stored under: `session:<id>`, or `principal:<scope key>:<subject>`. One
 * owner has one key and two owners never share one: the kinds differ in their prefix, and a scope
 * key (`all`, `server:<uuid>`) has a fixed form, so the subject, the one free part, comes last.
 * At most 203 characters, as the columns these parts come from hold at most 64 (session id),
 * 64 (scope key) and 128 (subject).
 */
export function ownerKey(owner: RequestOwner): string {
  return owner.kind === 'session'
    ? `session:${owner.sessionId}`
    : `principal:${scopeKey(owner.scope)}:${owner.subject}`;
}
