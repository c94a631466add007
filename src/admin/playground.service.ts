import { Injectable } from '@nestjs/common';
import {
  type CallToolResult,
  type JSONRPCResponse,
  type ReadResourceResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import { McpAccess } from '../auth/mcp-access';
import { type Principal } from '../auth/principal';
import { Dispatcher } from '../mcp/core/dispatcher';
import { McpApps } from '../mcp/apps/mcp-apps.service';
import { Directories } from '../mcp/directory/directories.service';
import { type McpScope, scopeOf } from '../mcp/protocol/mcp-scope';
import {
  type PolicyDryRunResultDto,
  type PolicyDryRunToolDto,
} from '../policy-dry-run/dto/policy-dry-run.dto';
import { PolicyDryRun } from '../policy-dry-run/policy-dry-run';
import { PolicyException } from '../policies/policy.exception';
import { sharedAffinity } from '../upstream/upstream-client';

/** The version the playground's calls state: the stateless revision, one request per call. */
const PLAYGROUND_PROTOCOL = '2026-07-28';
/** What the playground says of itself as a client; the audit entry's `actedBy` marks it. */
const PLAYGROUND_CLIENT = { name: 'Portico playground', version: '1' };
/**
 * What the playground declares as a client: the MCP Apps extension, so that app tools answer as
 * to a host, and form elicitation, which the page asks the person in front of it (a policy's
 * approval among them).
 */
const PLAYGROUND_CAPABILITIES = {
  elicitation: { form: {} },
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};
/** How long a playground call may take before the page gives up on it. */
const CALL_TIMEOUT_MS = 120_000;

/** Whom the playground acts as, and what that user may do at one endpoint. */
export type PlaygroundSight =
  { ok: true; principal: Principal; seen: PolicyDryRunResultDto } | { ok: false; error: string };

/** One tool the chosen user may call, with the definition their `tools/list` gives. */
export interface PlaygroundTool {
  judged: PolicyDryRunToolDto;
  definition: McpTool;
}

/** The outcome of a playground call: the CallToolResult, or the JSON-RPC error a client gets. */
export type PlaygroundCall =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'input'; inputRequests: Record<string, unknown>; requestState: string }
  | { kind: 'error'; code: number; message: string };

/** A call answering the input round of an earlier one: its sealed state and the answers. */
export interface PlaygroundResume {
  requestState: string;
  inputResponses: Record<string, unknown>;
}

/**
 * The admin playground: see an MCP endpoint as one user sees it and call its tools as they would.
 * What they see is the policy dry run's judgement (the same decision code as `tools/list`); a call
 * is a `tools/call` request given to the core as a client's, as that user, so that the endpoint's
 * access rule, policies, approvals, pins, rate limits and hooks apply as to them, and its audit
 * entry names who made it in the playground. Only an admin may act as another user.
 */
@Injectable()
export class Playground {
  constructor(
    private readonly dryRun: PolicyDryRun,
    private readonly access: McpAccess,
    private readonly directories: Directories,
    private readonly dispatcher: Dispatcher,
    private readonly apps: McpApps,
  ) {}

  /** `as` names the user to act as (a username or id); empty: the actor themselves. */
  async sight(actor: Principal, as: string, serverId: string | null): Promise<PlaygroundSight> {
    const named = as.trim();
    if (named !== '' && named !== actor.name && named !== actor.userId && actor.role !== 'admin')
      return { ok: false, error: 'Only an admin may act as another user.' };
    if (named === '' && actor.userId === null)
      return { ok: false, error: 'This sign-in has no user to act as.' };
    let principal: Principal;
    try {
      principal = await this.dryRun.principalOfUser(named === '' ? actor.userId! : named);
    } catch (error) {
      if (error instanceof PolicyException) return { ok: false, error: error.message };
      throw error;
    }
    const target =
      serverId === null ? { kind: 'all' as const } : { kind: 'server' as const, serverId };
    const decision = await this.access.check(principal, target);
    if (!decision.allowed)
      return {
        ok: false,
        error: `${principal.name} may not use this endpoint: ${decision.message}`,
      };
    try {
      return {
        ok: true,
        principal,
        seen: await this.dryRun.run({ user: principal.userId!, serverId }),
      };
    } catch (error) {
      if (error instanceof PolicyException) return { ok: false, error: error.message };
      throw error;
    }
  }

  /** The tools the user's `tools/list` lists at this endpoint, with their definitions. */
  async tools(seen: PolicyDryRunResultDto): Promise<PlaygroundTool[]> {
    const directory = await this.directories.get(scopeOf(seen.serverId));
    if (!directory) return [];
    return seen.tools.flatMap((judged) => {
      const tool = directory.tools.byName.get(judged.name);
      return judged.listed && tool ? [{ judged, definition: tool.definition }] : [];
    });
  }

  /** Calls `name` as the user `sight` found, through the core, as their MCP client would. */
  async call(
    actor: Principal,
    principal: Principal,
    serverId: string | null,
    name: string,
    args: Record<string, unknown>,
    resume?: PlaygroundResume,
  ): Promise<PlaygroundCall> {
    const answer = await this.serve(
      actor,
      principal,
      serverId,
      'tools/call',
      { name, arguments: args },
      resume,
    );
    if ('error' in answer)
      return { kind: 'error', code: answer.error.code, message: answer.error.message };
    const result = answer.result as CallToolResult & {
      resultType?: unknown;
      inputRequests?: Record<string, unknown>;
      requestState?: string;
    };
    if (result.resultType === 'input_required')
      return {
        kind: 'input',
        inputRequests: result.inputRequests ?? {},
        requestState: result.requestState ?? '',
      };
    return { kind: 'result', result };
  }

  /** Reads an MCP App's UI resource as the user, as their host would; null where it is refused. */
  async readApp(
    actor: Principal,
    principal: Principal,
    serverId: string | null,
    uri: string,
  ): Promise<{ html: string; meta: unknown } | null> {
    const answer = await this.serve(actor, principal, serverId, 'resources/read', { uri });
    if ('error' in answer) return null;
    const [content] = (answer.result as ReadResourceResult).contents;
    if (!content || !('text' in content) || !content.mimeType?.startsWith('text/html')) return null;
    return { html: content.text, meta: (content._meta as { ui?: unknown } | undefined)?.ui };
  }

  /**
   * A call the View of `app` (the tool whose UI the page frames) makes through the playground's
   * host: only its own gateway's backend tools, by their hashed names, as the bridge names them.
   * Portico is the host here, so it keeps an upstream's View from calling other upstreams' tools
   * as the user.
   */
  async appCall(
    actor: Principal,
    principal: Principal,
    serverId: string | null,
    app: string,
    name: string,
    args: Record<string, unknown>,
  ): Promise<PlaygroundCall> {
    const directory = await this.directories.get(scopeOf(serverId));
    const appTool = directory?.tools.byName.get(app);
    if (!appTool || !(await this.apps.ownBackendTool(appTool.gatewayId, name)))
      return {
        kind: 'error',
        code: -32602,
        message: `The app of ${app} may call only its own gateway's tools, which ${name} is not.`,
      };
    return this.call(actor, principal, serverId, name, args);
  }

  /** One request given to the core as the user's MCP client's, marked as the actor's. */
  private serve(
    actor: Principal,
    principal: Principal,
    serverId: string | null,
    method: string,
    params: Record<string, unknown>,
    resume?: PlaygroundResume,
  ): Promise<JSONRPCResponse> {
    const scope: McpScope = scopeOf(serverId);
    return this.dispatcher.serve({
      id: 1,
      method,
      params,
      resume: resume ?? null,
      scope,
      principal,
      meta: {
        protocolVersion: PLAYGROUND_PROTOCOL,
        clientCapabilities: PLAYGROUND_CAPABILITIES,
        clientInfo: PLAYGROUND_CLIENT,
        logLevel: null,
        traceparent: null,
      },
      owner: { kind: 'principal', scope, subject: principal.subject },
      affinity: sharedAffinity(PLAYGROUND_CAPABILITIES, { userId: principal.userId }),
      sessionId: null,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      sink: { notify: () => undefined },
      playgroundBy: actor.name,
    });
  }
}
