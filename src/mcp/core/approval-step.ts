import { Injectable, Logger } from '@nestjs/common';
import { ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { type ApprovalPolicy, type ApprovalRecord } from '../../approvals/approval-record';
import { RememberedApprovals } from '../../approvals/remembered-approvals';
import { errorMessage } from '../../common/error-message';
import { declaresCapability } from '../../upstream/client-capabilities';
import { MISSING_CLIENT_CAPABILITY, RpcError, TOOL_CALL_REFUSED } from '../protocol/mcp-errors';
import { type McpRequest } from '../protocol/mcp-request';
import { type Continued } from './continuation';
import { INVALID_REQUEST_STATE } from './request-state-seal';

/** How much of the arguments the question shows; the audit entry keeps their digest. */
const SHOWN_ARGUMENTS_LIMIT = 1_000;
const ELICITATION = { elicitation: {} };
/** The key of Portico's question in its input round, and of the client's answer. */
export const APPROVAL_INPUT = 'portico_approval';

/** The tool a call is about, as the question names it. */
export interface ApprovedTool {
  id: string;
  /** As the client called it. */
  name: string;
  gatewaySlug: string;
}

/** A round of input the call needs before it can go on: its answer to the client for now. */
export class NeedsInput extends Error {
  constructor(readonly result: Result) {
    super('input required');
  }
}

/**
 * A person's yes before a call goes upstream, when a policy says one is needed: Portico's own
 * input round (an elicitation), which a 2026-07-28 client answers in its retry and the 2025
 * session adapter asks its client for. A yes may be remembered for the user and tool for as long
 * as the policy allows, and holds for the rest of the call's rounds (see Continuation). Whatever
 * becomes of it is noted for the audit entry.
 */
@Injectable()
export class ApprovalStep {
  private readonly logger = new Logger(ApprovalStep.name);

  constructor(private readonly remembered: RememberedApprovals) {}

  /**
   * Resolves once the call may go on: true when the person said yes in this very request (the
   * policies may have changed while they were asked), false when an earlier yes holds. Throws
   * NeedsInput with the question when a person must be asked now, or the refusal.
   */
  async obtain(
    request: McpRequest,
    tool: ApprovedTool,
    args: Record<string, unknown>,
    asked: ApprovalPolicy,
    version: string,
    continued: Continued,
    note: (record: ApprovalRecord) => void,
  ): Promise<boolean> {
    const { principal } = request;
    const record = recorder(request, tool, asked, note);
    const mark = continued.approved;
    if (mark?.policy === asked.policy.id && mark.version === version) {
      await this.spend(continued, tool, asked, record);
      record('approved', undefined, mark.at);
      return false;
    }
    const until = this.remembered.validUntil(
      principal.subject,
      tool.id,
      asked.policy.id,
      asked.revision,
    );
    if (until !== null) {
      record('remembered', until);
      return false;
    }
    const own = continued.own;
    if (own?.policy.id === asked.policy.id && own.version === version)
      return this.answered(request, tool, asked, version, continued, record);
    if (!declaresCapability(request.meta.clientCapabilities, ELICITATION)) {
      record('unavailable');
      throw cannotAsk(tool, asked);
    }
    record('asked');
    throw new NeedsInput(
      continued.ask(
        {
          [APPROVAL_INPUT]: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: `${question(tool, asked)}\n\nArguments: ${shownArguments(args)}`,
              requestedSchema: answerSchema(asked),
            },
          },
        },
        asked.policy,
        version,
      ),
    );
  }

  /**
   * A person answered this call's question, but the policies in force now deny the call: their
   * yes counts for nothing, which the audit entry says.
   */
  overruled(
    request: McpRequest,
    tool: ApprovedTool,
    continued: Continued,
    by: { id: string; name: string } | null,
    note: (record: ApprovalRecord) => void,
  ): void {
    const own = continued.own;
    if (!own) return;
    const asked: ApprovalPolicy = {
      policy: own.policy,
      revision: '',
      message: null,
      rememberSeconds: 0,
    };
    note({ ...recorded(request, tool, asked, 'overruled'), overruledBy: by });
  }

  /** The person's answer to the question of an earlier round of this call. */
  private async answered(
    request: McpRequest,
    tool: ApprovedTool,
    asked: ApprovalPolicy,
    version: string,
    continued: Continued,
    record: ReturnType<typeof recorder>,
  ): Promise<boolean> {
    const { principal } = request;
    const answer = continued.own?.answers[APPROVAL_INPUT] as
      { action?: unknown; content?: { remember?: unknown } } | undefined;
    if (answer?.action !== 'accept') {
      const outcome =
        answer?.action === 'cancel'
          ? 'cancelled'
          : answer?.action === 'decline'
            ? 'declined'
            : 'unanswered';
      record(outcome);
      throw new RpcError(
        TOOL_CALL_REFUSED,
        outcome === 'unanswered'
          ? `Not approved: no answer came to the approval that policy '${asked.policy.name}' asked for the call of '${tool.name}'.`
          : `Not approved: ${principal.name} ${outcome} the call of '${tool.name}' that policy '${asked.policy.name}' asked them to approve.`,
        { policy: asked.policy.name, approval: outcome },
      );
    }
    await this.spend(continued, tool, asked, record);
    const at = new Date().toISOString();
    continued.approved = { policy: asked.policy.id, version, at };
    // A yes the admin playground gave acting as someone else is for this call only: it is not
    // theirs to remember.
    const theirs = request.playgroundBy === undefined || request.playgroundBy === principal.name;
    if (asked.rememberSeconds > 0 && answer.content?.remember === true && theirs) {
      const expiresAt = new Date(Date.now() + asked.rememberSeconds * 1000);
      await this.remembered.remember({
        subject: principal.subject,
        username: principal.name,
        toolId: tool.id,
        policy: asked.policy,
        revision: asked.revision,
        expiresAt,
      });
      record('approved', expiresAt.getTime(), at);
    } else record('approved', undefined, at);
    return true;
  }

  /**
   * A yes lets one call through: the retry's state that carries it is used up here, and a retry
   * that brings it again (the same state, answers and arguments, on any replica) is refused.
   */
  private async spend(
    continued: Continued,
    tool: ApprovedTool,
    asked: ApprovalPolicy,
    record: ReturnType<typeof recorder>,
  ): Promise<void> {
    let first: boolean;
    try {
      first = await continued.spend();
    } catch (error) {
      // Unrecorded, the yes could be used again: the call does not go on.
      this.logger.warn(`Could not record an approval's use: ${errorMessage(error)}`);
      throw new RpcError(
        ProtocolErrorCode.InternalError,
        `The approval of this call of '${tool.name}' could not be recorded as used (the database did not answer), so the call was not made; call the tool again.`,
      );
    }
    if (first) return;
    record('replayed');
    throw new RpcError(
      ProtocolErrorCode.InvalidParams,
      `${INVALID_REQUEST_STATE}: the approval it carries, from policy '${asked.policy.name}', has let its call of '${tool.name}' through already. Call the tool again to be asked again.`,
      { policy: asked.policy.name, approval: 'replayed' },
    );
  }
}

/** Notes what became of the approval, with what the person was (or would have been) shown. */
function recorder(
  request: McpRequest,
  tool: ApprovedTool,
  asked: ApprovalPolicy,
  note: (record: ApprovalRecord) => void,
): (outcome: ApprovalRecord['outcome'], rememberedUntil?: number, at?: string) => void {
  return (outcome, rememberedUntil, at) =>
    note({
      ...recorded(request, tool, asked, outcome, at),
      ...(rememberedUntil === undefined
        ? {}
        : { rememberedUntil: new Date(rememberedUntil).toISOString() }),
    });
}

function recorded(
  request: McpRequest,
  tool: ApprovedTool,
  asked: ApprovalPolicy,
  outcome: ApprovalRecord['outcome'],
  at = new Date().toISOString(),
): ApprovalRecord {
  return {
    policy: asked.policy,
    outcome,
    // Whoever answered: the admin playground's actor, where one acted as this principal.
    by: request.playgroundBy ?? request.principal.name,
    at,
    shown: question(tool, asked),
  };
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
 * The client cannot be asked: the error that names the capability the request lacks (the 2025
 * session adapter words it as its era's refusal, its capabilities having been fixed at
 * initialize).
 */
function cannotAsk(tool: ApprovedTool, asked: ApprovalPolicy): RpcError {
  return new RpcError(
    MISSING_CLIENT_CAPABILITY,
    `Policy '${asked.policy.name}' needs your approval for calls of '${tool.name}', and this client cannot be asked: it did not declare the elicitation capability. Use a client that supports elicitation.`,
    { requiredCapabilities: ELICITATION, policy: asked.policy.name, approval: 'unavailable' },
  );
}
