import { type Result } from '@modelcontextprotocol/server';
import { RELATED_TASK_META_KEY, taskOutcome, type TaskUpstream } from './task-result';

/** An upstream whose tasks/get answers each status in turn (the last one again after). */
function upstreamOf(...states: Record<string, unknown>[]) {
  const sent: { method: string; params?: Record<string, unknown> }[] = [];
  let next = 0;
  const upstream: TaskUpstream = (method, params) => {
    sent.push({ method, ...(params ? { params } : {}) });
    if (method === 'tasks/update') return Promise.resolve({});
    const state = states[Math.min(next++, states.length - 1)]!;
    return Promise.resolve({ pollIntervalMs: 1, ...state } as Result);
  };
  return { upstream, sent };
}

const sink = (ask?: (request: { method: string }) => Promise<Result>) => ({
  notify: () => undefined,
  ...(ask ? { ask } : {}),
});

describe('taskOutcome (2025 tasks/result over the extension)', () => {
  it("polls until the task completes and answers its result, naming the client's task", async () => {
    const done = { content: [{ type: 'text', text: 'ok' }], _meta: { kept: 1 } };
    const { upstream, sent } = upstreamOf(
      { status: 'working' },
      { status: 'working' },
      { status: 'completed', result: done },
    );
    const result = await taskOutcome({ sink: sink() }, 'pt1.x', upstream);
    expect(result).toEqual({
      content: done.content,
      _meta: { kept: 1, [RELATED_TASK_META_KEY]: { taskId: 'pt1.x' } },
    });
    expect(sent.map((s) => s.method)).toEqual(['tasks/get', 'tasks/get', 'tasks/get']);
  });

  it('answers a failed task with its error, and a cancelled one with an error', async () => {
    const failed = upstreamOf({ status: 'failed', error: { code: -32000, message: 'broke' } });
    await expect(taskOutcome({ sink: sink() }, 'pt1.x', failed.upstream)).rejects.toMatchObject({
      code: -32000,
      message: 'broke',
    });
    const cancelled = upstreamOf({ status: 'cancelled' });
    await expect(taskOutcome({ sink: sink() }, 'pt1.x', cancelled.upstream)).rejects.toMatchObject({
      message: 'The task was cancelled',
    });
  });

  it("asks the client for the task's input once per key and sends the answers upstream", async () => {
    const asks = { k1: { method: 'elicitation/create', params: { message: 'Sure?' } } };
    const { upstream, sent } = upstreamOf(
      { status: 'input_required', inputRequests: asks },
      // Not yet moved on upstream: the same key is not asked again.
      { status: 'input_required', inputRequests: asks },
      { status: 'completed', result: { content: [] } },
    );
    const ask = jest.fn(() => Promise.resolve({ action: 'accept', content: { ok: true } }));
    await taskOutcome({ sink: sink(ask) }, 'pt1.x', upstream);
    expect(ask).toHaveBeenCalledTimes(1);
    expect(sent[1]).toEqual({
      method: 'tasks/update',
      params: { inputResponses: { k1: { action: 'accept', content: { ok: true } } } },
    });
  });

  it('fails a task that needs input when the client cannot be asked', async () => {
    const { upstream } = upstreamOf({
      status: 'input_required',
      inputRequests: { k: { method: 'elicitation/create', params: {} } },
    });
    await expect(taskOutcome({ sink: sink() }, 'pt1.x', upstream)).rejects.toMatchObject({
      message: expect.stringContaining('cannot be asked'),
    });
  });

  it('gives up after its wait, and when the request is cancelled', async () => {
    const { upstream } = upstreamOf({ status: 'working' });
    await expect(taskOutcome({ sink: sink() }, 'pt1.x', upstream, 30)).rejects.toMatchObject({
      message: expect.stringContaining('has not ended'),
    });
    const abort = new AbortController();
    const waiting = taskOutcome({ sink: sink(), signal: abort.signal }, 'pt1.x', upstream, 60_000);
    setTimeout(() => abort.abort('cancelled by the client'), 20);
    await expect(waiting).rejects.toThrow('cancelled by the client');
  });
});
