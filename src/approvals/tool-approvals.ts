import { Injectable } from '@nestjs/common';
import { declaresCapability } from '../mcp/protocol/client-capabilities';
import { type McpCall } from '../mcp/protocol/mcp-call';
import { MISSING_CLIENT_CAPABILITY, RpcError, TOOL_CALL_REFUSED } from '../mcp/protocol/mcp-errors';
import { type ApprovalPolicy, type ApprovalRecord } from './approval-record';
import { RememberedApprovals } from './remembered-approvals';

/** How much of the arguments the question shows; the audit entry keeps their digest. */
const SHOWN_ARGUMENTS_LIMIT = 1_000;
const ELICITATION = { elicitation: {} };

/** The tool a call is about, as the question names it. */
export interface ApprovedTool {
  id: string;
  /** As the client called it. */
  name: string;
  gatewaySlug: string;
}

/**
 * Asks the caller's user before a call goes upstream, when a policy says a person must say yes:
 * an elicitation on a 2025 session, an `input_required` round on the 2026-07-28 wire (the call
 * waits parked, as a translated upstream request does). A yes may be remembered for the user and
 * tool for as long as the policy allows. Whatever becomes of it is noted for the audit entry.
 */
@Injectable()
export class ToolApprovals {
  constructor(private readonly remembered: RememberedApprovals) {}

  /**
   * Resolves once the user said yes (true), or had said it and asked for it to be remembered
   * (false: nobody was asked now).
   */
  async obtain(
    call: McpCall,
    tool: ApprovedTool,
    args: Record<string, unknown>,
    asked: ApprovalPolicy,
    note: (record: ApprovalRecord) => void,
  ): Promise<boolean> {
    const { principal } = call;
    const record = recorder(call, tool, asked, note);
    const until = this.remembered.validUntil(principal.subject, tool.id, asked.policy.id);
    if (until !== null) {
      record('remembered', until);
      return false;
    }
    if (!declaresCapability(call.clientCapabilities, ELICITATION)) {
      record('unavailable');
      throw cannotAsk(call, tool, asked);
    }
    let answer: { action?: unknown; content?: { remember?: unknown } };
    try {
      answer = (await call.ask({
        method: 'elicitation/create',
        params: {
          message: `${question(tool, asked)}\n\nArguments: ${shownArguments(args)}`,
          requestedSchema: answerSchema(asked),
        },
      })) as typeof answer;
    } catch (error) {
      // No answer came: the client did not reply in time, cancelled, or went away.
      record('unanswered');
      throw error;
    }
    if (answer.action !== 'accept') {
      const outcome = answer.action === 'cancel' ? 'cancelled' : 'declined';
      record(outcome);
      throw new RpcError(
        TOOL_CALL_REFUSED,
        `Not approved: ${principal.name} ${outcome} the call of '${tool.name}' that policy '${asked.policy.name}' asked them to approve.`,
        { policy: asked.policy.name, approval: outcome },
      );
    }
    if (asked.rememberSeconds > 0 && answer.content?.remember === true) {
      const expiresAt = new Date(Date.now() + asked.rememberSeconds * 1000);
      await this.remembered.remember({
        subject: principal.subject,
        username: principal.name,
        toolId: tool.id,
        policy: asked.policy,
        expiresAt,
      });
      record('approved', expiresAt.getTime());
      return true;
    }
    record('approved');
    return true;
  }

  /** The yes given earlier in this same call stands: noted, nobody is asked. */
  carried(
    call: McpCall,
    tool: ApprovedTool,
    asked: ApprovalPolicy,
    note: (record: ApprovalRecord) => void,
  ): void {
    recorder(call, tool, asked, note)('carried');
  }
}

/** Notes what became of the approval, with what the person was (or would have been) shown. */
function recorder(
  call: McpCall,
  tool: ApprovedTool,
  asked: ApprovalPolicy,
  note: (record: ApprovalRecord) => void,
): (outcome: ApprovalRecord['outcome'], rememberedUntil?: number) => void {
  const shown = question(tool, asked);
  return (outcome, rememberedUntil) =>
    note({
      policy: asked.policy,
      outcome,
      by: call.principal.name,
      at: new Date().toISOString(),
      shown,
      ...(rememberedUntil === undefined
        ? {}
        : { rememberedUntil: new Date(rememberedUntil).toISOString() }),
    });
}

/** What the person reads, without the arguments (the audit entry keeps this part). */
function question(tool: ApprovedTool, asked: ApprovalPolicy): string {
  const why = asked.message ? `\n${asked.message}` : '';
  return `Approve this call of '${tool.name}' (gateway '${tool.gatewaySlug}')? Policy '${asked.policy.name}' asks a person to say yes first.${why}`;
}

function shownArguments(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > SHOWN_ARGUMENTS_LIMIT
    ? `${text.slice(0, SHOWN_ARGUMENTS_LIMIT)}… (${text.length} characters in all)`
    : text;
}

/** Accepting is the yes; the one field offers to remember it, where the policy allows. */
function answerSchema(asked: ApprovalPolicy): Record<string, unknown> {
  if (asked.rememberSeconds === 0) return { type: 'object', properties: {} };
  return {
    type: 'object',
    properties: {
      remember: {
        type: 'boolean',
        title: `Remember my yes for ${duration(asked.rememberSeconds)}`,
        default: false,
      },
    },
  };
}

function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return plural(seconds / 86_400, 'day');
  if (seconds % 3_600 === 0) return plural(seconds / 3_600, 'hour');
  if (seconds % 60 === 0) return plural(seconds / 60, 'minute');
  return plural(seconds, 'second');
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * The client cannot be asked: on the 2026-07-28 wire the error that names the capability the
 * request lacks; on a 2025 session a refusal, since its capabilities were fixed at initialize.
 */
function cannotAsk(call: McpCall, tool: ApprovedTool, asked: ApprovalPolicy): RpcError {
  const message = `Policy '${asked.policy.name}' needs your approval for calls of '${tool.name}', and this client cannot be asked: it did not declare the elicitation capability. Use a client that supports elicitation.`;
  return call.era === 'modern'
    ? new RpcError(MISSING_CLIENT_CAPABILITY, message, { requiredCapabilities: ELICITATION })
    : new RpcError(TOOL_CALL_REFUSED, message, {
        policy: asked.policy.name,
        approval: 'unavailable',
      });
}
