import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type Implementation,
  type InitializeResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { Metrics } from '../../health/metrics';
import { McpApps } from '../apps/mcp-apps.service';
import { isLoggingLevel } from '../logging-level';
import { errorResponse, invalidParams, RpcError } from '../mcp-errors';
import { type SessionRuntime } from '../session/session-runtime';
import { SessionStore } from '../session/session.store';
import { Directories } from './directories.service';
import { PromptCalls } from './prompt-calls';
import { ResourceCalls } from './resource-calls';
import { type ScopeDirectory } from '../directory/scope-directory';
import { ToolCalls } from './tool-calls';
import { CallGuard } from './call-guard';
import { type Principal } from '../../auth/principal';

const PORTICO_VERSION = '1.0.0';

/** What every Portico endpoint offers, whatever its members: lists can grow after initialize. */
const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

function cursorOf(params: unknown): string | undefined {
  const cursor = (params as { cursor?: unknown } | undefined)?.cursor;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string') throw invalidParams('cursor must be a string');
  return cursor;
}

/**
 * The one way a client's request goes: every MCP method of a session is answered here, each by
 * the part that owns it, against the scope's directory as it is now.
 */
@Injectable()
export class McpRouter {
  constructor(
    private readonly directories: Directories,
    private readonly store: SessionStore,
    private readonly tools: ToolCalls,
    private readonly resources: ResourceCalls,
    private readonly prompts: PromptCalls,
    private readonly apps: McpApps,
    private readonly metrics: Metrics,
    private readonly guard: CallGuard,
  ) {}

  /** The answer to a client request; it never throws. */
  async answer(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    if (request.method === 'tools/call') return this.callTool(runtime, request, signal, principal);
    try {
      const result = await this.route(runtime, request, principal);
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      return errorResponse(request.id, error);
    }
  }

  /** A client notification about the session; cancellations are the transport's. */
  async notify(runtime: SessionRuntime, notification: JSONRPCNotification): Promise<void> {
    if (notification.method === 'notifications/roots/list_changed')
      await runtime.upstreams.notifyAll(notification);
  }

  /** The scope's directory; an error once its virtual server is gone or disabled. */
  async directory(runtime: SessionRuntime): Promise<ScopeDirectory> {
    const directory = await this.directories.get(runtime.scope);
    if (!directory)
      throw new RpcError(
        ErrorCode.InvalidRequest,
        'This virtual server no longer exists or is disabled',
      );
    return directory;
  }

  /** The hot path, kept apart for its metrics. */
  private async callTool(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    signal: AbortSignal,
    principal: Principal,
  ): Promise<JSONRPCResponse> {
    const started = performance.now();
    const served = { gateway: '' };
    let answer: JSONRPCResponse;
    try {
      const directory = await this.directory(runtime);
      const result = await this.tools.call(
        runtime,
        this.guard.visible(directory, principal),
        directory.guard,
        principal,
        request.id,
        request.params,
        signal,
        served,
      );
      answer = { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      answer = errorResponse(request.id, error);
    }
    this.metrics.recordCall(served.gateway, answer, (performance.now() - started) / 1000);
    return answer;
  }

  private async route(
    runtime: SessionRuntime,
    request: JSONRPCRequest,
    principal: Principal,
  ): Promise<Result> {
    const { params } = request;
    switch (request.method) {
      case 'ping':
        return {};
      case 'logging/setLevel':
        return this.setLogLevel(runtime, params);
    }
    const directory = await this.directory(runtime);
    switch (request.method) {
      case 'initialize':
        return this.initialize(runtime, directory);
      case 'tools/list':
        return this.tools.list(runtime, this.guard.visible(directory, principal), cursorOf(params));
      case 'resources/list':
        return this.resources.list(runtime, directory, cursorOf(params));
      case 'resources/templates/list':
        return this.resources.templates(directory, cursorOf(params));
      case 'resources/read':
        return this.resources.read(runtime, directory, params);
      case 'resources/subscribe':
        return this.resources.subscribe(runtime, directory, params, true);
      case 'resources/unsubscribe':
        return this.resources.subscribe(runtime, directory, params, false);
      case 'prompts/list':
        return this.prompts.list(runtime, directory, cursorOf(params));
      case 'prompts/get':
        return this.prompts.get(runtime, directory, params);
      case 'completion/complete':
        return this.prompts.complete(runtime, directory, params);
      default:
        throw new RpcError(ErrorCode.MethodNotFound, 'Method not found');
    }
  }

  private initialize(runtime: SessionRuntime, directory: ScopeDirectory): InitializeResult {
    const serverInfo: Implementation = {
      name: directory.server ? `Portico: ${directory.server.name}` : 'Portico',
      version: PORTICO_VERSION,
    };
    return {
      protocolVersion: runtime.session.protocolVersion,
      capabilities: { ...CAPABILITIES, ...this.apps.capabilities(directory.tools) },
      serverInfo,
    };
  }

  /** Stored for every replica; an upstream that does not take it fails nothing for the client. */
  private async setLogLevel(runtime: SessionRuntime, params: unknown): Promise<Result> {
    const level = (params as { level?: unknown } | undefined)?.level;
    if (!isLoggingLevel(level)) throw invalidParams('logging/setLevel needs a valid level');
    await this.store.update(runtime.id, { logLevel: level });
    runtime.session.logLevel = level;
    await runtime.upstreams.setLogLevel(level);
    return {};
  }
}
