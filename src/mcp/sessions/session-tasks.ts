import { Injectable } from '@nestjs/common';
import {
  type ClientCapabilities,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { sharedAffinity } from '../../upstream/upstream-client';
import { type Affinity } from '../../upstream/upstream-connection';
import { MODERN_VERSIONS } from '../protocol/mcp-request';
import { type ScopeDirectory } from '../directory/scope-directory';
import { jsonRpcError } from '../protocol/mcp-errors';
import { type McpRequest } from '../protocol/mcp-request';
import { TaskCalls } from '../tasks/task-calls';
import { Tally } from '../../common/tally';
import { type SessionRuntime } from './session-runtime';

/** The 2025-11-25 task methods a session is answered (`tasks/list` is not offered). */
export const SESSION_TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/result',
  'tasks/cancel',
]);

/** The 2025 revisions that define tasks: an older session is offered none. */
export const TASK_VERSIONS: ReadonlySet<string> = new Set(['2025-11-25']);

/** How a request goes on: the session adapter's core call, its input rounds asked of the client. */
type Serve = (request: McpRequest) => Promise<JSONRPCResponse>;

/**
 * `tasks/result` waits one principal may have in progress on a replica. Each polls its upstream
 * for up to ten minutes, and a 2025 client that leaves does not cancel it: forty left behind
 * polled an upstream 400 times a second.
 */
export const MAX_RESULT_WAITS = 16;

/**
 * The experimental tasks of 2025-11-25 (SEP-1686) for a session, over the Tasks extension
 * upstream (`io.modelcontextprotocol/tasks`, 2026-07-28): what a 2026-07-28 client declaring the
 * extension would send, and what comes back in 2025's words. Offered where an upstream of the
 * scope declares the extension (as `server/discover` advertises it): `initialize` names
 * `capabilities.tasks` (tool calls and cancel, no list), and tools/list marks that upstream's
 * tools `execution.taskSupport: "optional"` (the extension marks no tool). A `tools/call` with
 * `params.task` goes upstream declaring the extension on a connection shared as a 2026-07-28
 * client's, and its task comes back as CreateTaskResult with Portico's task id; `tasks/get`,
 * `tasks/cancel` and `tasks/result` reach the core as the extension's requests (the core waits
 * for `tasks/result` itself, see taskOutcome). Task ids are the ones the extension's path hands
 * out, bound to the principal and endpoint; no `notifications/tasks/status` is sent.
 */
@Injectable()
export class SessionTasks {
  /** `tasks/result` waits in progress here, by principal subject. */
  private readonly waits = new Tally();

  constructor(private readonly tasks: TaskCalls) {}

  /** `initialize`'s `capabilities.tasks`, when an upstream of the scope declares the extension. */
  async capabilities(
    runtime: SessionRuntime,
    directory: ScopeDirectory,
  ): Promise<ServerCapabilities> {
    if (!(await this.offered(runtime, directory))) return {};
    return { tasks: { cancel: {}, requests: { tools: { call: {} } } } };
  }

  /**
   * tools/list as offered with tasks: a tool whose upstream declares the extension may run as a
   * task (`optional`); any other tool may not (`forbidden`, where it said otherwise).
   */
  async listed(
    runtime: SessionRuntime,
    directory: ScopeDirectory,
    answer: JSONRPCResponse,
  ): Promise<JSONRPCResponse> {
    if (!('result' in answer)) return answer;
    const affinity = this.affinity(runtime);
    if (!(await this.offered(runtime, directory))) return answer;
    const tools = (answer.result as { tools?: Tool[] }).tools ?? [];
    const marked = await Promise.all(
      tools.map(async (tool) => {
        const gatewayId = upstreamOf(directory, tool.name);
        if (gatewayId && (await this.tasks.declares(gatewayId, affinity)))
          return { ...tool, execution: { ...tool.execution, taskSupport: 'optional' as const } };
        if (tool.execution?.taskSupport === undefined) return tool;
        return { ...tool, execution: { ...tool.execution, taskSupport: 'forbidden' as const } };
      }),
    );
    return { ...answer, result: { ...answer.result, tools: marked } };
  }

  /** A 2025 task request's answer, through the core as the extension's request. */
  async answer(
    runtime: SessionRuntime,
    directory: ScopeDirectory,
    request: McpRequest,
    serve: Serve,
  ): Promise<JSONRPCResponse> {
    if (request.method === 'tools/call') return this.call(runtime, directory, request, serve);
    // Where tasks are not offered, 2025's task methods are unknown, as they were.
    if (!(await this.offered(runtime, directory)))
      return jsonRpcError(request.id, ProtocolErrorCode.MethodNotFound, 'Method not found');
    switch (request.method) {
      case 'tasks/get':
        return asTask(await serve(this.translated(runtime, request)));
      case 'tasks/cancel': {
        // 2025 answers a cancel with the task; the extension's cancel answers nothing.
        const cancelled = await serve(this.translated(runtime, request));
        if (!('result' in cancelled)) return cancelled;
        return asTask(await serve(this.translated(runtime, { ...request, method: 'tasks/get' })));
      }
      default:
        return this.waited(request, () => serve(this.translated(runtime, request)));
    }
  }

  /** A `tasks/result` wait, within the principal's MAX_RESULT_WAITS. */
  private async waited(
    request: McpRequest,
    wait: () => Promise<JSONRPCResponse>,
  ): Promise<JSONRPCResponse> {
    const subject = request.principal.subject;
    if (this.waits.of(subject) >= MAX_RESULT_WAITS)
      return jsonRpcError(
        request.id,
        ProtocolErrorCode.InvalidRequest,
        `At most ${MAX_RESULT_WAITS} tasks/result requests of one user wait at once; ask again when one has ended`,
      );
    this.waits.add(subject);
    try {
      return await wait();
    } finally {
      this.waits.release(subject);
    }
  }

  /**
   * A tool call asked as a task: as the extension's call where the tool's upstream declares it,
   * its task answered as CreateTaskResult (a result the upstream gave at once stays as it is, as
   * 2025 lets a server that does not make a task answer); elsewhere the call as any other.
   */
  private async call(
    runtime: SessionRuntime,
    directory: ScopeDirectory,
    request: McpRequest,
    serve: Serve,
  ): Promise<JSONRPCResponse> {
    const { task: _task, ...params } = request.params ?? {};
    const name = typeof params.name === 'string' ? params.name : '';
    const gatewayId = upstreamOf(directory, name);
    if (!gatewayId || !(await this.tasks.declares(gatewayId, this.affinity(runtime))))
      return serve({ ...request, params });
    const answer = await serve(this.translated(runtime, { ...request, params }));
    if (!('result' in answer) || answer.result.resultType !== 'task') return answer;
    return { ...answer, result: { task: taskOf(answer.result) } };
  }

  /**
   * The request as a 2026-07-28 client declaring the extension would make it: its capabilities
   * with the extension, on connections shared by such requests (acting for the session's user),
   * so that its upstream may answer a task and its task ids are the extension path's.
   */
  private translated(runtime: SessionRuntime, request: McpRequest): McpRequest {
    const capabilities = withTasks(request.meta.clientCapabilities);
    const protocolVersion = MODERN_VERSIONS[0] ?? request.meta.protocolVersion;
    return {
      ...request,
      meta: { ...request.meta, protocolVersion, clientCapabilities: capabilities },
      affinity: sharedAffinity(capabilities, runtime.affinity.actingFor),
    };
  }

  /** Whether the session's revision has tasks and an upstream of its scope has the extension. */
  private async offered(runtime: SessionRuntime, directory: ScopeDirectory): Promise<boolean> {
    if (!TASK_VERSIONS.has(runtime.session.protocolVersion)) return false;
    return this.tasks.offered(directory, this.affinity(runtime));
  }

  private affinity(runtime: SessionRuntime): Affinity {
    const capabilities = withTasks(runtime.session.initializeParams?.capabilities ?? {});
    return sharedAffinity(capabilities, runtime.affinity.actingFor);
  }
}

/**
 * The gateway of a tool the scope lists by that name, whose upstream then decides whether a call
 * makes a task; none for a consolidated tool (its member is chosen per call), nor for a name
 * the directory does not list (tool search's own, an app's hashed name).
 */
function upstreamOf(directory: ScopeDirectory, name: string): string | undefined {
  const tool = directory.tools.byName.get(name);
  return tool && !tool.consolidated ? tool.gatewayId : undefined;
}

function withTasks(capabilities: ClientCapabilities): ClientCapabilities {
  return {
    ...capabilities,
    extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} },
  };
}

/** A `tasks/get` answer in 2025's words. */
function asTask(answer: JSONRPCResponse): JSONRPCResponse {
  return 'result' in answer ? { ...answer, result: taskOf(answer.result) } : answer;
}

/**
 * A task of the extension as 2025-11-25's Task: the same statuses (`working`, `input_required`,
 * `completed`, `failed`, `cancelled`), `ttlMs` as `ttl` (null: no limit given) and
 * `pollIntervalMs` as `pollInterval`; its result, error and input requests are not part of it
 * (they come by `tasks/result`).
 */
function taskOf(task: Result): Result {
  const t = task as Record<string, unknown>;
  return {
    taskId: t.taskId,
    status: t.status,
    ...(typeof t.statusMessage === 'string' ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttl: typeof t.ttlMs === 'number' ? t.ttlMs : null,
    ...(typeof t.pollIntervalMs === 'number' ? { pollInterval: t.pollIntervalMs } : {}),
  };
}
