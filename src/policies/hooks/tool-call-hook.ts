import { type CallToolResult } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';

/** What a hook sees of one tool call. */
export interface ToolCallContext {
  /** The virtual server called through; null for `/mcp`. */
  serverId: string | null;
  /** The name the client called. */
  toolName: string;
  toolId: string;
  gatewaySlug: string;
  principal: Principal;
  /** The call's arguments; a `before` hook may replace them. */
  arguments: Record<string, unknown>;
}

/**
 * A step around each tool call of a server. `before` runs ahead of the upstream call and may
 * refuse it or rewrite the arguments; `after` runs on the upstream's result and returns the
 * result the client gets. Hooks run in the server's order (`after` in the same order). Whatever a
 * hook throws fails the call: a HookRefusal with its own message, anything else as a failure of
 * that hook. The upstream result is never passed on unchecked.
 */
export interface ToolCallHook {
  readonly name: string;
  before?(context: ToolCallContext): void | Promise<void>;
  after?(
    context: ToolCallContext,
    result: CallToolResult,
  ): CallToolResult | Promise<CallToolResult>;
}

/** A hook's deliberate refusal of a call, with what the client should be told. */
export class HookRefusal extends Error {}

/** A hook's settings that it cannot run with; the API answers 422 with the message. */
export class HookConfigError extends Error {}

/** Builds a hook from its stored settings; throws HookConfigError on bad ones. */
export type ToolCallHookFactory = (config: Record<string, unknown>) => ToolCallHook;
