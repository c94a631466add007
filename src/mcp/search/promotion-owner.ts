import { type McpScope } from '../protocol/mcp-scope';

/**
 * Who holds a conversation's tool-search promotions: a 2025 session (in its row), or on the
 * 2026-07-28 wire, which has no session, the principal in the scope it reaches.
 */
export type PromotionOwner =
  { kind: 'session'; sessionId: string } | { kind: 'principal'; scope: McpScope; subject: string };
