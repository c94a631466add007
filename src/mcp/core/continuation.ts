import { Injectable } from '@nestjs/common';
import { type Result } from '@modelcontextprotocol/server';
import { SpentApprovals } from '../../approvals/spent-approvals';
import { UpstreamFailure } from '../../upstream/upstream-error';
import { type McpRequest, type Resume } from '../protocol/mcp-request';
import { invalidParams } from '../protocol/mcp-errors';
import { scopeKey } from '../protocol/mcp-scope';
import {
  type ApprovalMark,
  INVALID_REQUEST_STATE,
  type RequestStateBinding,
  RequestStateSealer,
  RequestStateTooLarge,
} from './request-state-seal';

/** What a request goes to upstream: the gateway, and the tool, prompt or URI as it knows them. */
export type RoundTarget = Omit<RequestStateBinding, 'subject' | 'scope'>;

/** One input request of a round, as 2026-07-28 words it. */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** A round Portico asked itself (a person's approval under a policy), with the answers to it. */
export interface OwnRound {
  policy: { id: string; name: string };
  version: string;
  answers: Record<string, unknown>;
}

/** A request as it continues (or starts) a call that may take input rounds. */
export interface Continued {
  /** What the upstream gets of the round: its own state out of Portico's, and the answers. */
  upstream: Resume;
  /** Portico's own round this request answers, when it answers one. */
  own: OwnRound | null;
  /**
   * The approval this call carries: from the retry's state, or given during this request. Sealed
   * with the next round, so that a person is asked once per call, not once per round.
   */
  approved: ApprovalMark | null;
  /**
   * Uses up the retry's state, for a call it lets through on a person's yes: true the first time
   * (and again within this request; also when the request brought no state), false once any
   * replica has used it.
   */
  spend(): Promise<boolean>;
  /** The upstream's round for the client: its upstream state sealed inside Portico's. */
  answer<T extends Result>(round: T): T;
  /** Portico's own round: `inputRequests` to the client, the answers to come back to `policy`. */
  ask(
    inputRequests: Record<string, InputRequest>,
    policy: { id: string; name: string },
    version: string,
  ): Result;
}

/**
 * Multi Round-Trip Requests, for both eras (the 2025 session adapter answers rounds on its
 * client's behalf): an upstream's `input_required` round goes to the client as it came, but its
 * `requestState` travels inside Portico's own sealed state, bound to who asked, where, and what
 * (gateway, upstream target, arguments): a client cannot point a state at another tool, principal
 * or argument set, nor forge one for the upstream. The retry, on any replica, is checked against
 * its own request and reaches the upstream with the inner state unchanged. Portico's own rounds
 * (a person's approval) are sealed the same way. A call opens its continuation only when a round
 * is in play: its request continues one (`resume`), its upstream asks one, or a policy does.
 */
@Injectable()
export class Continuation {
  constructor(
    private readonly sealer: RequestStateSealer,
    private readonly spent: SpentApprovals,
  ) {}

  /** Throws -32602 INVALID_REQUEST_STATE when the retry's state is refused. */
  open(request: McpRequest, target: RoundTarget): Continued {
    // Needed only to open or seal a state.
    let bound: RequestStateBinding | null = null;
    const binding = () =>
      (bound ??= { subject: request.principal.subject, scope: scopeKey(request.scope), ...target });
    const { requestState, inputResponses } = request.resume ?? {};
    const upstream: Resume = {};
    let approved: ApprovalMark | null = null;
    let own: OwnRound | null = null;
    let spending: () => Promise<boolean> = () => Promise.resolve(true);
    if (requestState === undefined) {
      // A round without state of its own: the answers go to the upstream as they came.
      if (inputResponses !== undefined) upstream.inputResponses = inputResponses;
    } else {
      const opened = this.sealer.unseal(requestState, binding());
      if (!opened.ok || opened.content.kind === 'rerun') throw invalidParams(INVALID_REQUEST_STATE);
      const { content, id, expiresAt } = opened;
      let spent: Promise<boolean> | null = null;
      spending = () => (spent ??= this.spent.spend(id, expiresAt));
      if (content.kind === 'approval') {
        own = {
          policy: { id: content.policy, name: content.name },
          version: content.version,
          answers: answersOf(inputResponses),
        };
      } else {
        if (content.requestState !== undefined) upstream.requestState = content.requestState;
        if (inputResponses !== undefined) upstream.inputResponses = inputResponses;
        approved = content.approved ?? null;
      }
    }
    const continued: Continued = {
      upstream,
      own,
      approved,
      spend: spending,
      answer: (round) => this.sealed(round, binding(), continued.approved),
      ask: (inputRequests, policy, version) => ({
        resultType: 'input_required',
        inputRequests,
        requestState: this.sealer.seal(binding(), {
          kind: 'approval',
          policy: policy.id,
          name: policy.name,
          version,
        }),
      }),
    };
    return continued;
  }

  private sealed<T extends Result>(
    result: T,
    binding: RequestStateBinding,
    approved: ApprovalMark | null,
  ): T {
    const { requestState, ...round } = result as T & { requestState?: unknown };
    // No state of its own, nor an approval to carry: the retry carries only the answers.
    if (requestState === undefined && !approved) return round as T;
    // The upstream's own words are at fault here: -32012, naming it, as for any unusable answer.
    if (requestState !== undefined && typeof requestState !== 'string')
      throw new UpstreamFailure(
        'protocol',
        'its input round has a requestState that is not a string',
      );
    try {
      const sealed = this.sealer.seal(binding, {
        kind: 'upstream',
        ...(requestState === undefined ? {} : { requestState }),
        ...(approved ? { approved } : {}),
      });
      return { ...round, requestState: sealed } as unknown as T;
    } catch (error) {
      if (error instanceof RequestStateTooLarge)
        throw new UpstreamFailure('protocol', error.message);
      throw error;
    }
  }
}

function answersOf(inputResponses: unknown): Record<string, unknown> {
  return inputResponses !== null && typeof inputResponses === 'object'
    ? (inputResponses as Record<string, unknown>)
    : {};
}
