import { Injectable } from '@nestjs/common';
import {
  type InitializeResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { answeringRounds } from '../../upstream/input-rounds';
import { APPROVAL_INPUT } from '../core/approval-step';
import { BOTH_ERAS, Dispatcher } from '../core/dispatcher';
import { ResourceCalls, uriOf } from '../core/resource-calls';
import { SERVER_CAPABILITIES } from '../core/server-identity';
import { isInputRequired, UpstreamClient } from '../../upstream/upstream-client';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { type ListKind, type ScopeDirectory } from '../directory/scope-directory';
import { ResourceWatch } from '../listen/resource-watch';
import { isLoggingLevel } from '../protocol/logging-level';
import {
  errorResponse,
  fromUpstream,
  invalidParams,
  MISSING_CLIENT_CAPABILITY,
  RpcError,
  TOOL_CALL_REFUSED,
} from '../protocol/mcp-errors';
import { type McpRequest, ROUND_METHODS } from '../protocol/mcp-request';
import { type SessionRuntime } from './session-runtime';
import { SessionStore } from './session.store';
import { ConsentWaits } from './consent';
import { SESSION_TASK_METHODS, SessionTasks, TASK_VERSIONS } from './session-tasks';

/** The lists whose version a session records when it reads them, by method. */
const LISTED: Readonly<Record<string, ListKind>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'prompts/list': 'prompts',
};

/** The answer a round gets for a question its client could not answer (it went away, timed out). */
const NO_ANSWER: Result = {};

/**
 * The 2025 session adapter's side of a request. It answers what only a session has (initialize,
 * ping, the session's log level, resource subscriptions, 2025's tasks: see SessionTasks), and
 * turns every other request into one request of the core. An `input_required` round the core
 * answers with (an upstream's, or a person's approval) becomes real requests to the client on the
 * request's stream, whose answers go back to the core with the round's state: the session's
 * client never sees a round.
 */
@Injectable()
export class SessionRequests {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly resources: ResourceCalls,
    private readonly store: SessionStore,
    private readonly client: UpstreamClient,
    private readonly watch: ResourceWatch,
    private readonly consent: ConsentWaits,
    private readonly tasks: SessionTasks,
  ) {}

  /** The answer to a session's request; it never throws (see Dispatcher.serve). */
  async answer(
    runtime: SessionRuntime,
    message: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    const request = requestOf(runtime, message, signal, principal);
    let directory: ScopeDirectory | undefined;
    try {
      const own = await this.own(runtime, request);
      if (own) return { jsonrpc: '2.0', id: message.id, result: own };
      if (isTaskRequest(request) || message.method === 'tools/list')
        directory = await this.dispatcher.directory(runtime.scope);
    } catch (error) {
      return this.dispatcher.failed(request, error);
    }
    const serve = (served: McpRequest) => this.throughRounds(runtime, served);
    if (directory && isTaskRequest(request))
      return inEra(await this.tasks.answer(runtime, directory, request, serve));
    if (!BOTH_ERAS.has(message.method))
      return errorResponse(
        message.id,
        new RpcError(ProtocolErrorCode.MethodNotFound, 'Method not found'),
      );
    let answer = await serve(request);
    if (directory) answer = await this.tasks.listed(runtime, directory, answer);
    const listed = LISTED[message.method];
    if (listed && 'result' in answer) {
      const directory = await this.dispatcher.directory(runtime.scope).catch(() => null);
      if (directory) runtime.seen.set(listed, directory.version(listed));
    }
    return inEra(answer);
  }

  /** A client notification about the session; cancellations are the transport's. */
  async notify(runtime: SessionRuntime, notification: JSONRPCNotification): Promise<void> {
    if (notification.method === 'notifications/roots/list_changed')
      await runtime.notifyUpstreams(notification);
  }

  /**
   * The core's answer, its input rounds asked of the client as real requests. A call that needs
   * its user to connect an OAuth upstream asks them to by a URL elicitation, where the client can
   * take one, and runs again once they have (once: the second answer stands).
   */
  private async throughRounds(
    runtime: SessionRuntime,
    request: McpRequest,
    consentAsked = false,
  ): Promise<JSONRPCResponse> {
    let answer = await this.dispatcher.serve(request);
    // Only a refusal can ask for a connection.
    if (
      !consentAsked &&
      'error' in answer &&
      (await this.consent.connected(runtime, request, answer))
    )
      return this.throughRounds(runtime, request, true);
    if (!('result' in answer) || !isInputRequired(answer.result)) return answer;
    const first = answer.result;
    try {
      await answeringRounds(
        async (answers) => {
          if (!answers) return first;
          answer = await this.dispatcher.serve({ ...request, resume: answers });
          return 'result' in answer ? answer.result : {};
        },
        (asked, key) =>
          runtime.ask(asked, request.id, request.signal).catch((error: unknown) => {
            // A person's approval left unanswered is the core's to note and refuse.
            if (key === APPROVAL_INPUT) return NO_ANSWER;
            throw error;
          }),
      );
    } catch (error) {
      return this.dispatcher.failed(request, error);
    }
    return answer;
  }

  private async own(runtime: SessionRuntime, request: McpRequest): Promise<Result | undefined> {
    switch (request.method) {
      case 'ping':
        return {};
      case 'logging/setLevel':
        return this.setLogLevel(runtime, request.params);
      case 'initialize':
        return this.initialize(runtime);
      case 'resources/subscribe':
        return this.subscribe(runtime, request, true);
      case 'resources/unsubscribe':
        return this.subscribe(runtime, request, false);
      default:
        return undefined;
    }
  }

  private async initialize(runtime: SessionRuntime): Promise<InitializeResult> {
    const directory = await this.dispatcher.directory(runtime.scope);
    return {
      protocolVersion: runtime.session.protocolVersion,
      capabilities: {
        ...SERVER_CAPABILITIES,
        ...(await this.dispatcher.extraCapabilities(runtime, directory)),
        ...(await this.tasks.capabilities(runtime, directory)),
      },
      serverInfo: directory.serverInfo,
    };
  }

  /** Stored for every replica; an upstream that does not take it fails nothing for the client. */
  private async setLogLevel(runtime: SessionRuntime, params: unknown): Promise<Result> {
    const level = (params as { level?: unknown } | undefined)?.level;
    if (!isLoggingLevel(level)) throw invalidParams('logging/setLevel needs a valid level');
    await this.store.update(runtime.id, { logLevel: level });
    runtime.session.logLevel = level;
    await runtime.setUpstreamLogLevel(level);
    return {};
  }

  /**
   * Stored for every replica; the resource is followed upstream from this replica (the one
   * resource watch that listens use too), and its updates go to this session's stream.
   */
  private async subscribe(
    runtime: SessionRuntime,
    request: McpRequest,
    subscribed: boolean,
  ): Promise<Result> {
    const method = subscribed ? 'resources/subscribe' : 'resources/unsubscribe';
    const directory = await this.dispatcher.directory(runtime.scope);
    const uri = uriOf(request.params, method);
    const target = this.resources.target(directory, uri);
    let stop: (() => void) | null = null;
    if (subscribed && !runtime.follows(uri))
      stop = await this.watch
        .follow(target, { affinity: runtime.affinity }, target.upstreamUri, {
          updated: () =>
            runtime.toClient({
              jsonrpc: '2.0',
              method: 'notifications/resources/updated',
              params: { uri },
            }),
          lost: () => runtime.followed(uri, null),
        })
        .catch((error: unknown) => {
          if (error instanceof UpstreamRpcError && error.code === -32601)
            throw new RpcError(
              ProtocolErrorCode.MethodNotFound,
              `The upstream of ${uri} does not offer subscriptions`,
            );
          if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
            throw fromUpstream(error, target.gatewaySlug);
          throw error;
        });
    const stored = await this.store.subscribe(runtime.id, uri, subscribed);
    if (stored) runtime.session.subscriptions = stored;
    if (stop || !subscribed) runtime.followed(uri, stop);
    return {};
  }
}

/**
 * An answer in this era's words: Portico's own refusal of a call whose approval the client cannot
 * be asked for names a missing capability, no error of 2025 (its capabilities were fixed at
 * initialize), so the call is refused. An upstream's own errors pass as they came.
 */
function inEra(answer: JSONRPCResponse): JSONRPCResponse {
  if (!('error' in answer) || answer.error.code !== MISSING_CLIENT_CAPABILITY) return answer;
  const { requiredCapabilities: _required, ...data } = (answer.error.data ?? {}) as Record<
    string,
    unknown
  >;
  if (data.approval !== 'unavailable') return answer;
  return { ...answer, error: { ...answer.error, code: TOOL_CALL_REFUSED, data } };
}

/**
 * One request of a session as the core serves it: the session's capabilities, client and log
 * level, its promotions, its own upstream connections, and the request's own stream for what goes
 * out about it.
 */
function requestOf(
  runtime: SessionRuntime,
  message: JSONRPCRequest,
  signal: AbortSignal,
  principal: Principal,
): McpRequest {
  const { id, method, params } = message;
  const { session } = runtime;
  const meta = (params?._meta ?? {}) as { traceparent?: unknown };
  return {
    id,
    method,
    params: ROUND_METHODS.has(method) ? withoutRound(params) : params,
    resume: null,
    scope: runtime.scope,
    principal,
    meta: {
      protocolVersion: session.protocolVersion,
      clientCapabilities: session.initializeParams?.capabilities ?? {},
      clientInfo: session.initializeParams?.clientInfo ?? null,
      logLevel: runtime.logLevel,
      traceparent: typeof meta.traceparent === 'string' ? meta.traceparent : null,
    },
    owner: { kind: 'session', sessionId: runtime.id },
    affinity: runtime.affinity,
    sessionId: runtime.id,
    signal,
    sink: {
      notify: (notification) => runtime.toClient(notification, id),
      ask: (asked) => runtime.ask(asked, id, signal),
    },
  };
}

/** Whether the request is one of 2025's tasks, which SessionTasks translates. */
function isTaskRequest({ method, params, meta }: McpRequest): boolean {
  if (!TASK_VERSIONS.has(meta.protocolVersion)) return false;
  return (
    SESSION_TASK_METHODS.has(method) || (method === 'tools/call' && params?.task !== undefined)
  );
}

/**
 * A 2025 client knows no input rounds (the adapter answers them for it): a round's state or
 * answers in its params are not its to give, and reach neither the core nor an upstream.
 */
function withoutRound(params: JSONRPCRequest['params']): JSONRPCRequest['params'] {
  if (params?.requestState === undefined && params?.inputResponses === undefined) return params;
  const { requestState: _state, inputResponses: _answers, ...rest } = params;
  return rest;
}
