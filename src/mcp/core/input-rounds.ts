import { Injectable } from '@nestjs/common';
import { ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { type McpCall } from '../protocol/mcp-call';
import { invalidParams, RpcError } from '../protocol/mcp-errors';
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

/** A request prepared for its upstream, and how the upstream's answer goes back to the client. */
export interface RelayedRequest {
  /** The params to send upstream: Portico's state replaced by the upstream's own. */
  params: Record<string, unknown>;
  /** Whether the upstream may answer `input_required` (a round the client itself answers). */
  allowInputRequired: boolean;
  /**
   * The approval this call carries: from the retry's state, or given during this request. Sealed
   * with the next round, so that a person is asked once per call, not once per round.
   */
  approved: ApprovalMark | null;
  /** The upstream's answer for the client: a round's upstream state sealed inside Portico's. */
  answer<T extends Result>(result: T): T;
}

/**
 * Multi Round-Trip Requests of a 2026-07-28 client relayed to a 2026-07-28 upstream (tools/call,
 * prompts/get, resources/read). The upstream's `input_required` round goes to the client as it
 * came, but its `requestState` travels inside Portico's own sealed state, bound to who asked,
 * where, and what (gateway, upstream target, arguments): a client cannot point a state at another
 * tool, principal or argument set, nor forge one for the upstream. The retry, on any replica,
 * is checked against its own request and reaches the upstream with the inner state unchanged.
 * A 2025 session relays nothing: its calls are as they were (the upstream's round is an error).
 */
@Injectable()
export class InputRounds {
  constructor(private readonly sealer: RequestStateSealer) {}

  /** Throws -32602 INVALID_REQUEST_STATE when the retry's state is refused. */
  relay(call: McpCall, target: RoundTarget, params: Record<string, unknown>): RelayedRequest {
    if (call.era !== 'modern')
      return { params, allowInputRequired: false, approved: null, answer: (result) => result };
    const binding: RequestStateBinding = {
      subject: call.principal.subject,
      scope: scopeKey(call.scope),
      ...target,
    };
    const { requestState, ...forwarded } = params;
    let approved: ApprovalMark | null = null;
    if (requestState !== undefined) {
      const opened = this.sealer.unseal(requestState, binding);
      // A parked call is a 2025 upstream's, which this relay never hands out.
      if (!opened.ok || opened.content.kind !== 'upstream')
        throw invalidParams(INVALID_REQUEST_STATE);
      if (opened.content.requestState !== undefined)
        forwarded.requestState = opened.content.requestState;
      approved = opened.content.approved ?? null;
    }
    const relayed: RelayedRequest = {
      params: forwarded,
      allowInputRequired: true,
      approved,
      answer: (result) => this.sealed(result, binding, relayed.approved),
    };
    return relayed;
  }

  private sealed<T extends Result>(
    result: T,
    binding: RequestStateBinding,
    approved: ApprovalMark | null,
  ): T {
    if (!isInputRequired(result)) return result;
    const { requestState, ...round } = result as T & { requestState?: unknown };
    // No state of its own, nor an approval to carry: the retry carries only the answers.
    if (requestState === undefined && !approved) return round as T;
    if (requestState !== undefined && typeof requestState !== 'string')
      throw new RpcError(
        ProtocolErrorCode.InternalError,
        'The upstream asked for input with a requestState that is not a string',
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
        throw new RpcError(ProtocolErrorCode.InternalError, error.message);
      throw error;
    }
  }
}

/** An answer that asks the client for input: it is not the result, and nothing may cache it. */
export function isInputRequired(result: Result): boolean {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}
