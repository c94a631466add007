import { type JSONRPCResponse } from '@modelcontextprotocol/server';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type McpRequest } from '../protocol/mcp-request';
import { type TaskCalls } from '../tasks/task-calls';
import { MAX_RESULT_WAITS, SessionTasks } from './session-tasks';
import { type SessionRuntime } from './session-runtime';

describe('SessionTasks', () => {
  it("keeps a user's tasks/result waits in progress to MAX_RESULT_WAITS, on any of their sessions", async () => {
    const tasks = new SessionTasks({
      offered: () => Promise.resolve(true),
    } as unknown as TaskCalls);
    const runtime = {
      session: { protocolVersion: '2025-11-25', initializeParams: null },
      affinity: { actingFor: { userId: 'u1' } },
    } as unknown as SessionRuntime;
    const request = (id: number, subject = 'user:u1') =>
      ({
        id,
        method: 'tasks/result',
        params: { taskId: 't' },
        principal: { subject },
        meta: { protocolVersion: '2025-11-25', clientCapabilities: {} },
      }) as unknown as McpRequest;
    const ends: (() => void)[] = [];
    const waiting = (id: number): Promise<JSONRPCResponse> =>
      new Promise((resolve) => ends.push(() => resolve({ jsonrpc: '2.0', id, result: {} })));
    const answers = Array.from({ length: MAX_RESULT_WAITS }, (_, i) =>
      tasks.answer(runtime, {} as ScopeDirectory, request(i), () => waiting(i)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const refused = await tasks.answer(runtime, {} as ScopeDirectory, request(99), () =>
      waiting(99),
    );
    expect(refused).toMatchObject({
      id: 99,
      error: { message: expect.stringContaining('At most') },
    });
    // Another user waits as before; once one wait ends, this user may wait again.
    void tasks.answer(runtime, {} as ScopeDirectory, request(100, 'user:u2'), () => waiting(100));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ends).toHaveLength(MAX_RESULT_WAITS + 1);
    ends[0]!();
    await answers[0];
    void tasks.answer(runtime, {} as ScopeDirectory, request(101), () => waiting(101));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ends).toHaveLength(MAX_RESULT_WAITS + 2);
  });
});
