import { ProtocolErrorCode, type Result } from '@modelcontextprotocol/server';
import { askInputs, MAX_ROUNDS } from '../../upstream/input-rounds';
import { RpcError } from '../protocol/mcp-errors';
import { type McpRequest } from '../protocol/mcp-request';

/** How long one `tasks/result` waits for its task to end before it answers with an error. */
export const RESULT_WAIT_MS = 10 * 60_000;
/** The bounds put on an upstream's `pollIntervalMs`, and what is used without one. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
const DEFAULT_POLL_MS = 1_000;

/** `_meta` key a 2025-11-25 `tasks/result` answer names its task under. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** A task as the extension's `tasks/get` shows it, as far as waiting for it needs. */
interface UpstreamTask {
  status?: unknown;
  pollIntervalMs?: unknown;
  result?: Result;
  error?: { code?: unknown; message?: unknown; data?: unknown };
  inputRequests?: unknown;
}

/** The upstream's `tasks/get` or `tasks/update` of the task, with the upstream's own id. */
export type TaskUpstream = (
  method: 'tasks/get' | 'tasks/update',
  params?: Record<string, unknown>,
) => Promise<Result>;

/**
 * `tasks/result` of 2025-11-25, which the extension does not have: the upstream's task polled
 * (`tasks/get`, at its `pollIntervalMs` within bounds) until it ends, and its outcome returned as
 * the request's own: the tool's result, named with the client's task id in `_meta`, or its
 * JSON-RPC error. Input the task asks for while it runs is asked of the client on this request's
 * stream (as a 2025 server asks in `tasks/result`), and its answers go upstream by `tasks/update`.
 * Ends with an error after `waitMs`, or when the request is cancelled.
 */
export async function taskOutcome(
  request: { signal?: AbortSignal; sink: McpRequest['sink'] },
  taskId: string,
  upstream: TaskUpstream,
  waitMs = RESULT_WAIT_MS,
): Promise<Result> {
  const deadline = Date.now() + waitMs;
  const answered = new Set<string>();
  let rounds = 0;
  for (;;) {
    const task = (await upstream('tasks/get')) as UpstreamTask;
    switch (task.status) {
      case 'completed': {
        const result = task.result ?? {};
        const meta = { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } };
        return { ...result, _meta: meta };
      }
      case 'failed':
        throw failure(task.error);
      case 'cancelled':
        throw new RpcError(ProtocolErrorCode.InvalidRequest, 'The task was cancelled');
      case 'input_required': {
        const asked = unanswered(task.inputRequests, answered);
        if (asked.length === 0) break;
        if (!request.sink.ask)
          throw new RpcError(
            ProtocolErrorCode.InternalError,
            'The task needs input that this client cannot be asked for',
          );
        if (++rounds > MAX_ROUNDS)
          throw new RpcError(
            ProtocolErrorCode.InternalError,
            `The task asked for input more than ${MAX_ROUNDS} times`,
          );
        const ask = request.sink.ask.bind(request.sink);
        const inputResponses = await askInputs(Object.fromEntries(asked), (input) => ask(input));
        await upstream('tasks/update', { inputResponses });
        for (const [key] of asked) answered.add(key);
        continue;
      }
    }
    if (Date.now() >= deadline)
      throw new RpcError(
        ProtocolErrorCode.InternalError,
        `The task has not ended after ${Math.round(waitMs / 1000)} s: ask for its result again`,
      );
    await pause(pollMs(task.pollIntervalMs), deadline, request.signal);
  }
}

/** The input requests of a task not answered yet by this wait. */
function unanswered(inputRequests: unknown, answered: ReadonlySet<string>): [string, unknown][] {
  if (inputRequests === null || typeof inputRequests !== 'object') return [];
  return Object.entries(inputRequests).filter(([key]) => !answered.has(key));
}

/** A failed task's error as the client's: the upstream's own code and message. */
function failure(error: UpstreamTask['error']): RpcError {
  const code = typeof error?.code === 'number' ? error.code : ProtocolErrorCode.InternalError;
  const message = typeof error?.message === 'string' ? error.message : 'The task failed';
  return new RpcError(code, message, error?.data);
}

function pollMs(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return DEFAULT_POLL_MS;
  return Math.min(Math.max(value, MIN_POLL_MS), MAX_POLL_MS);
}

/** Waits `ms` (never past the deadline); rejects when the request is cancelled meanwhile. */
function pause(ms: number, deadline: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(done, Math.max(0, Math.min(ms, deadline - Date.now())));
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      if (signal) reject(abortError(signal));
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}
