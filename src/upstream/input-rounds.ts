import { randomUUID } from 'node:crypto';
import { ProtocolErrorCode, type Result } from '@modelcontextprotocol/client';
import { type UpstreamAsk } from './upstream-connection';
import { isInputRequired } from './upstream-client';
import { UpstreamFailure, UpstreamRpcError } from './upstream-error';

/** Rounds of input one request may take before it is given up (the SDK's shim allows 8). */
export const MAX_ROUNDS = 8;
/** Input requests one round may hold. */
const MAX_INPUTS_PER_ROUND = 16;
/** What an `input_required` round may ask for (2026-07-28, InputRequest). */
const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** A round's continuation: the client's answers, and the state the round came with. */
export interface RoundAnswers {
  inputResponses: Record<string, Result>;
  requestState?: unknown;
}

/**
 * A request taken to its end by answering its input rounds as a client would: each round's input
 * requests asked all at once through `ask`, and the request sent again (`send`) with the answers
 * under the same keys and the round's state, until it completes. What a client that cannot take
 * a round itself needs (a 2025 session, the command line), in one place.
 */
export async function answeringRounds(
  send: (answers: RoundAnswers | null) => Promise<Result>,
  ask: (request: UpstreamAsk, key: string) => Promise<Result>,
): Promise<Result> {
  let result = await send(null);
  for (let round = 1; isInputRequired(result); round++) {
    if (round > MAX_ROUNDS)
      throw new UpstreamRpcError(
        ProtocolErrorCode.InternalError,
        `The request asked for input more than ${MAX_ROUNDS} times`,
      );
    const { inputRequests, requestState } = result as {
      inputRequests?: unknown;
      requestState?: unknown;
    };
    const inputResponses = await askInputs(inputRequests, ask);
    result = await send({
      inputResponses,
      ...(requestState === undefined ? {} : { requestState }),
    });
  }
  return result;
}

/**
 * A round's input requests (or a task's) asked of the client as real requests, all at once; their
 * answers under the same keys. A URL-mode elicitation gets the `elicitationId` a 2025 client
 * expects.
 */
export async function askInputs(
  inputRequests: unknown,
  ask: (request: UpstreamAsk, key: string) => Promise<Result>,
): Promise<Record<string, Result>> {
  const entries =
    inputRequests !== null && typeof inputRequests === 'object'
      ? Object.entries(inputRequests)
      : [];
  if (entries.length > MAX_INPUTS_PER_ROUND)
    throw new UpstreamFailure(
      'protocol',
      `the request asked for ${entries.length} inputs in one round; at most ${MAX_INPUTS_PER_ROUND} are relayed`,
    );
  const answers = await Promise.all(
    entries.map(async ([key, input]) => {
      const { method, params } = (input ?? {}) as { method?: unknown; params?: unknown };
      if (typeof method !== 'string' || !INPUT_METHODS.has(method))
        throw new UpstreamFailure(
          'protocol',
          `the request asked for input with an unknown method: ${JSON.stringify(method)?.slice(0, 40)}`,
        );
      const asked = params !== null && typeof params === 'object' ? { ...params } : {};
      if (method === 'elicitation/create' && (asked as { mode?: unknown }).mode === 'url')
        (asked as { elicitationId?: unknown }).elicitationId ??= randomUUID();
      return [key, await ask({ method, params: asked }, key)] as const;
    }),
  );
  return Object.fromEntries(answers);
}
