import { Injectable } from '@nestjs/common';
import {
  type Implementation,
  type InitializeResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { answeringRounds } from '../../upstream/input-rounds';
import { APPROVAL_INPUT } from '../core/approval-step';
import { Dispatcher } from '../core/dispatcher';
import { SERVER_CAPABILITIES } from '../core/server-identity';
import { isInputRequired } from '../../upstream/upstream-client';
import { PORTICO, type ScopeDirectory } from '../directory/scope-directory';
import { type UpstreamList } from '../../events/event-bus';
import { isLoggingLevel } from '../protocol/logging-level';
import {
  invalidParams,
  jsonRpcError,
  MISSING_CLIENT_CAPABILITY,
  TOOL_CALL_REFUSED,
} from '../protocol/mcp-errors';
import { BOTH_ERAS, type McpRequest, ROUND_METHODS } from '../protocol/mcp-request';
import { type SessionRuntime } from './session-runtime';
import { SessionStore } from './session.store';
import { ConsentWaits } from './consent';
import { SessionSubscriptions } from './session-subscriptions';
import { SESSION_TASK_METHODS, SessionTasks, TASK_VERSIONS } from './session-tasks';

/** The lists whose version a session records when it reads them, by method. */
const LISTED: Readonly<Record<string, UpstreamList>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'prompts/list': 'prompts',
};

/** The answer a round gets for a question its client could not answer (it went away, timed out). */
const NO_ANSWER: Result = {};

/**
 * The 2025 session adapter's side of a request. It answers what only a session has (initialize,
 * ping, the session's log level, resource subscriptions: SessionSubscriptions, 2025's tasks:
 * SessionTasks), and turns every other request into one request of the core, whose answer it puts
 * in 2025's words. An `input_required` round the core answers with (an upstream's, or a person's
 * approval) becomes real requests to the client on the request's stream, whose answers go back to
 * the core with the round's state: the session's client never sees a round.
 */
@Injectable()
export class SessionRequests {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly store: SessionStore,
    private readonly subscriptions: SessionSubscriptions,
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
      return this.inEra(runtime, await this.tasks.answer(runtime, directory, request, serve));
    if (!BOTH_ERAS.has(message.method))
      return jsonRpcError(message.id, ProtocolErrorCode.MethodNotFound, 'Method not found');
    let answer = await serve(request);
    if (directory) answer = await this.tasks.listed(runtime, directory, answer);
    const listed = LISTED[message.method];
    if (listed && 'result' in answer) {
      const directory = await this.dispatcher.directory(runtime.scope).catch(() => null);
      if (directory) runtime.seen.set(listed, directory.version(listed));
    }
    return this.inEra(runtime, answer);
  }

  /** The answer in 2025's words (inSessionEra), naming the scope's server where it names one. */
  private async inEra(runtime: SessionRuntime, answer: JSONRPCResponse): Promise<JSONRPCResponse> {
    if (!saysModern(answer)) return answer;
    const directory = await this.dispatcher.directory(runtime.scope).catch(() => null);
    return inSessionEra(answer, directory?.serverInfo ?? PORTICO);
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
        return this.subscriptions.change(runtime, request, true);
      case 'resources/unsubscribe':
        return this.subscriptions.change(runtime, request, false);
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

/** What a 2026-07-28 result says that 2025 has no word for: its type and its cache hint. */
const MODERN_ONLY = ['resultType', 'ttlMs', 'cacheScope'];

/**
 * Whether an answer says what a 2025 client has no word for; false for almost every answer (a
 * 2025 upstream's, or Portico's own), which a session then passes on as it is.
 */
function saysModern(answer: JSONRPCResponse): boolean {
  if ('error' in answer) return answer.error.code === MISSING_CLIENT_CAPABILITY;
  const { result } = answer;
  return (
    result._meta?.[SERVER_INFO_META_KEY] !== undefined || MODERN_ONLY.some((key) => key in result)
  );
}

/**
 * An answer in 2025's words. A result a 2026-07-28 upstream gave loses what 2025 has no word for,
 * and where it names the server that answered, that server is Portico (`identity`), never the
 * upstream. Portico's own refusal of a call whose approval the client cannot be asked for names a
 * missing capability, no error of 2025 (its capabilities were fixed at initialize), so the call
 * is refused. An upstream's own errors pass as they came.
 */
export function inSessionEra(answer: JSONRPCResponse, identity: Implementation): JSONRPCResponse {
  if ('result' in answer) {
    const said: Result = { ...answer.result };
    for (const key of MODERN_ONLY) delete said[key];
    if (said._meta?.[SERVER_INFO_META_KEY] !== undefined)
      said._meta = { ...said._meta, [SERVER_INFO_META_KEY]: identity };
    return { ...answer, result: said };
  }
  const { requiredCapabilities: _required, ...data } = (answer.error.data ?? {}) as Record<
    string,
    unknown
  >;
  if (answer.error.code !== MISSING_CLIENT_CAPABILITY || data.approval !== 'unavailable')
    return answer;
  return { ...answer, error: { ...answer.error, code: TOOL_CALL_REFUSED, data } };
}
