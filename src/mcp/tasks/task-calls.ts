import { Injectable } from '@nestjs/common';
import { type Result, type ServerCapabilities } from '@modelcontextprotocol/server';
import { authorizationContext, UpstreamClient } from '../../upstream/upstream-client';
import { type Affinity } from '../../upstream/upstream-connection';
import { UpstreamFailure } from '../../upstream/upstream-error';
import { UpstreamEras } from '../../upstream/eras/upstream-eras.service';
import { Directories } from '../directory/directories.service';
import { type ScopeDirectory } from '../directory/scope-directory';
import { invalidParams, MISSING_CLIENT_CAPABILITY, RpcError } from '../protocol/mcp-errors';
import {
  type McpRequest,
  MODERN_VERSIONS,
  type RequestMeta,
  type Served,
} from '../protocol/mcp-request';
import { scopeKey } from '../protocol/mcp-scope';
import { type TaskBinding, TaskIdSealer, taskRef, type TaskRoute } from './task-id-seal';
import { TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { taskOutcome, type TaskUpstream } from './task-result';
import { TaskAccess } from './task-access';

/**
 * The methods of the Tasks extension the 2026-07-28 wire takes; `tasks/result` and `tasks/list`
 * (2025-11-25) are not (the 2025 session adapter sends `tasks/result` to the core itself).
 */
export const TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

/** Keys of one tasks/update's inputResponses relayed at most (as many as an input round). */
const MAX_INPUT_RESPONSES = 16;

/** What a task's calls record, for the audit trail: which task, under one reference. */
export interface TaskServed extends Served {
  /** The task's reference (taskRef), the same on each of its calls' entries. */
  task?: string;
  /** The task's tool as the client called it, for a tasks/* entry's target. */
  tool?: string;
}

/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) through Portico, on the
 * 2026-07-28 wire, where the extension is defined (per-request capabilities, `resultType`, input
 * rounds and listens are of that revision). A 2025 session's tasks reach it translated by the
 * session adapter (SessionTasks) into requests of this kind. A tools/call goes upstream declaring the extension only when the request itself declares it;
 * an upstream's CreateTaskResult comes back with its task id wrapped (TaskIdSealer), and
 * `tasks/get`, `tasks/update` and `tasks/cancel` go to the upstream the id names with its own id.
 */
@Injectable()
export class TaskCalls {
  constructor(
    private readonly sealer: TaskIdSealer,
    private readonly client: UpstreamClient,
    private readonly eras: UpstreamEras,
    private readonly access: TaskAccess,
    private readonly directories: Directories,
  ) {}

  /** Whether this request may see tasks: a 2026-07-28 request declaring the extension. */
  declared(meta: RequestMeta): boolean {
    if (!MODERN_VERSIONS.includes(meta.protocolVersion)) return false;
    const extensions = (meta.clientCapabilities as { extensions?: Record<string, unknown> })
      .extensions;
    return extensions?.[TASKS_EXTENSION] !== undefined && extensions[TASKS_EXTENSION] !== null;
  }

  /**
   * An upstream's CreateTaskResult (a tools/call's answer of resultType `task`) for the client:
   * Portico's task id in place of the upstream's.
   */
  created(
    request: McpRequest,
    result: Result,
    route: Omit<TaskRoute, 'taskId'>,
    served: TaskServed,
  ): Result {
    const taskId = (result as { taskId?: unknown }).taskId;
    // The upstream's fault, answered as what it sent that Portico cannot use (-32012).
    if (typeof taskId !== 'string' || taskId.length === 0)
      throw new UpstreamFailure(
        'protocol',
        'the upstream created a task whose taskId is no non-empty string',
      );
    const upstream = { ...route, taskId };
    served.task = taskRef(upstream);
    // A result the task came with would pass no `after` hook here: the client reads it by
    // tasks/get, which passes them. An id too long to seal is the upstream's fault too.
    const { result: _inline, ...task } = result;
    return { ...task, taskId: this.sealer.seal(binding(request), upstream) };
  }

  /**
   * `tasks/get`, `tasks/update` or `tasks/cancel`, at the upstream that holds the task; and
   * `tasks/result`, which only the 2025 session adapter sends on its client's behalf (see
   * taskOutcome): the 2026-07-28 wire does not take it.
   */
  async serve(request: McpRequest, directory: ScopeDirectory, served: TaskServed): Promise<Result> {
    if (!this.declared(request.meta))
      throw new RpcError(
        MISSING_CLIENT_CAPABILITY,
        `${request.method} needs the ${TASKS_EXTENSION} extension declared in the request's client capabilities`,
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      );
    const params = request.params ?? {};
    const route = this.sealer.open(params.taskId, binding(request));
    // Another principal's id, another endpoint's, an altered or a made-up one, or one whose tool
    // the caller may no longer use here: all the same.
    const tool = route && (await this.access.tool(directory, request.principal, route));
    if (!route || !tool) throw taskNotFound();
    served.task = taskRef(route);
    served.tool = route.tool;
    served.gateway = tool.gatewaySlug;
    // Declared, so the request's affinity states the extension upstream (see sharedAffinity).
    const upstream = (method: string, forwarded: Record<string, unknown> = {}) =>
      this.client.call(route.gatewayId, request.affinity, (c) =>
        c.request(
          method,
          { ...forwarded, taskId: route.taskId },
          { signal: request.signal, caller: { capabilities: request.affinity.capabilities } },
        ),
      );
    // The tool's result, as a call's would go out.
    let current = directory;
    const delivered = (result: Result) =>
      this.access.delivered(current, request.principal, route, tool, result);
    if (request.method === 'tasks/result') {
      // The wait is the call going on: each poll is judged as the call would be now, so a deny
      // policy, a tool taken off or disabled meanwhile ends it.
      const polled: TaskUpstream = async (method, forwarded) => {
        current = (await this.directories.get(request.scope)) ?? current;
        if (!(await this.access.tool(current, request.principal, route))) throw taskNotFound();
        return upstream(method, forwarded);
      };
      return delivered(await taskOutcome(request, String(params.taskId), polled));
    }
    const result = await upstream(
      request.method,
      request.method === 'tasks/update'
        ? { inputResponses: boundedResponses(params.inputResponses) }
        : {},
    );
    // The task as the client knows it, whichever method answered with it: its own id, whatever
    // the upstream's answer said, and its own words (a status message, an error) and its result
    // passed by the hooks as a call's result is.
    const { result: ended, ...task } = result as Result & { result?: unknown };
    if (ended !== undefined && (ended === null || typeof ended !== 'object'))
      throw new UpstreamFailure('protocol', "the upstream's task result is no object");
    return {
      ...(await delivered(task)),
      ...('taskId' in result || request.method === 'tasks/get' ? { taskId: params.taskId } : {}),
      ...(ended === undefined ? {} : { result: await delivered(ended as Result) }),
    };
  }

  /** Whether an upstream of the scope (a 2026-07-28 one) declares the extension. */
  async offered(directory: ScopeDirectory, affinity: Affinity): Promise<boolean> {
    const gateways = [...directory.tools.gateways.keys()];
    const declares = await Promise.all(gateways.map((id) => this.declares(id, affinity)));
    return declares.some(Boolean);
  }

  /**
   * `server/discover`'s capabilities with the extension added when an upstream of the scope
   * (a 2026-07-28 one) declares it.
   */
  async advertised(
    directory: ScopeDirectory,
    affinity: Affinity,
    capabilities: ServerCapabilities,
  ): Promise<ServerCapabilities> {
    if (!(await this.offered(directory, affinity))) return capabilities;
    const extensions = (capabilities as { extensions?: Record<string, unknown> }).extensions;
    return {
      ...capabilities,
      extensions: { ...extensions, [TASKS_EXTENSION]: {} },
    };
  }

  /**
   * Whether the gateway's upstream (a 2026-07-28 one) declares the extension, as far as Portico
   * knows without asking it: the extensions its era probe found (kept on the gateway, so every
   * replica knows them), or, for an upstream pinned to the era, what `server/discover` told a
   * connection of this replica in the same authorization context. Nothing is opened to ask: a
   * session's initialize or a discover never waits on an upstream, nor adds to its load.
   */
  async declares(gatewayId: string, affinity: Affinity): Promise<boolean> {
    const target = await this.client.target(gatewayId);
    if (!target || target.endpoint.transport === 'openapi') return false;
    // A verdict past its time still says what the upstream last declared: nothing routes by it.
    const verdict = this.eras.verdict(target) ?? target.storedEra;
    if (verdict?.era !== '2026-07-28') return false;
    const extensions =
      verdict.extensions ??
      Object.keys(
        this.eras.discovered(target, authorizationContext(target, affinity.actingFor))?.capabilities
          .extensions ?? {},
      );
    return extensions.includes(TASKS_EXTENSION);
  }
}

function taskNotFound(): RpcError {
  return invalidParams('Failed to retrieve task: Task not found');
}

function binding(request: McpRequest): TaskBinding {
  return { subject: request.principal.subject, scope: scopeKey(request.scope) };
}

/** A tasks/update's answers as the client sent them, at most MAX_INPUT_RESPONSES keys. */
function boundedResponses(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidParams('tasks/update needs inputResponses');
  const entries = Object.entries(value);
  if (entries.length > MAX_INPUT_RESPONSES)
    throw invalidParams(
      `tasks/update carries ${entries.length} inputResponses; at most ${MAX_INPUT_RESPONSES} are relayed`,
    );
  return Object.fromEntries(entries);
}
