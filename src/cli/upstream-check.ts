import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  type ClientCapabilities,
  type Implementation,
  type Result,
} from '@modelcontextprotocol/client';
import { loadConfig } from '../config/load-config';
import { type GatewayCredentials } from '../upstream/upstream-credentials';
import { readCatalogue, SYNC_CAPABILITIES, type UpstreamCatalogue } from '../sync/catalogue.reader';
import { headerParamsOf } from '../upstream/modern/mcp-param-headers';
import { SHARED_OWNER } from '../upstream/oauth/upstream-oauth-token.entity';
import { type OAuthUpstream } from '../upstream/oauth/oauth-exchange';
import { MODERN_PROTOCOL_VERSIONS } from '../upstream/eras/protocol-era';
import { answeringRounds } from '../upstream/input-rounds';
import { StandaloneUpstreams } from '../upstream/standalone-upstreams';
import {
  type RequestSink,
  type UpstreamAsk,
  type UpstreamConnection,
} from '../upstream/upstream-connection';
import {
  UpstreamAuthorizationRequired,
  UpstreamFailure,
  UpstreamRpcError,
} from '../upstream/upstream-error';
import { type UpstreamTarget } from '../upstream/upstream-target';
import { CliError } from './cli-error';
import { LoopbackCallback } from './oauth-loopback';
import { errorMessage } from '../common/error-message';

/**
 * Authorizations one run may make: the first, and two more when the upstream asks for more scope
 * or refuses the token; an upstream that keeps refusing then gets an error, not a loop.
 */
const MAX_AUTHORIZATIONS = 3;
/** How long the person has to consent at the provider. */
const AUTHORIZATION_WAIT_MS = 5 * 60_000;

export interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

export interface PromptGet {
  name: string;
  arguments?: Record<string, string>;
}

/** What `portico upstream` does with an upstream, after reading its catalogue as sync does. */
export interface UpstreamCheckPlan {
  url: string;
  transport: 'streamable-http' | 'sse';
  credentials: GatewayCredentials;
  /** The tools to call: a list, or picked from the catalogue read. */
  calls: ToolCall[] | ((catalogue: UpstreamCatalogue) => ToolCall[]);
  reads: string[];
  prompts: PromptGet[];
  /** The content each elicitation of the upstream is accepted with; without it, each is declined. */
  elicitation?: Record<string, unknown>;
  /** The loopback port the provider sends an authorization back to; 0 for any free one. */
  redirectPort: number;
}

export interface UpstreamCheckHooks {
  /** Sends the person to the provider's authorization page. */
  authorize(url: string): Promise<void>;
  /** A line of progress, for stderr. */
  note(line: string): void;
}

/** One call, read or prompt, and how it went. */
export interface StepOutcome {
  target: string;
  result?: unknown;
  error?: string;
}

export interface UpstreamReport {
  url: string;
  era: '2026-07-28' | '2025';
  protocolVersion: string | null;
  server: Implementation | null;
  tools: string[];
  /** Listed tools a 2026-07-28 client must not use (invalid x-mcp-header annotations), and why. */
  unusableTools: { name: string; reason: string }[];
  resources: string[];
  resourceTemplates: string[];
  prompts: string[];
  calls: StepOutcome[];
  reads: StepOutcome[];
  promptsGot: StepOutcome[];
  authorizations: number;
}

/**
 * Connects to an upstream with the gateway's own upstream code (era probe, discover or
 * initialize, OAuth, guards), reads its catalogue as sync does, then calls, reads and gets what
 * the plan says, answering the upstream's questions as a downstream client would. An OAuth upstream is
 * authorized as the gateway's own account, through a loopback redirect; it is asked again when the
 * upstream refuses the token or wants more scope, a few times at most.
 */
export async function checkUpstream(
  plan: UpstreamCheckPlan,
  env: NodeJS.ProcessEnv,
  hooks: UpstreamCheckHooks,
): Promise<UpstreamReport> {
  const { credentials } = plan;
  const codeFlow = credentials.type === 'oauth' && credentials.mode !== 'client-credentials';
  const callback = codeFlow ? await LoopbackCallback.start(plan.redirectPort) : null;
  // Keys of this process alone: nothing it seals outlives it.
  const config = loadConfig({
    ...env,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    JWT_SECRET: randomBytes(48).toString('base64url'),
    ...(callback ? { PUBLIC_URL: callback.origin } : {}),
  });
  // The upstream code's warnings become notes; stdout carries the report alone.
  Logger.overrideLogger({
    log: () => undefined,
    warn: (message: unknown) => hooks.note(String(message)),
    error: (message: unknown) => hooks.note(String(message)),
  });
  const upstreams = new StandaloneUpstreams(config);
  const check = new Check(plan, upstreams, callback, hooks);
  try {
    return await check.run();
  } catch (error) {
    // What the gateway would record as the upstream's last error, on one line.
    if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
      throw new CliError(`Cannot use ${plan.url}: ${describe(error)}`);
    throw error;
  } finally {
    await upstreams.close();
    await callback?.close();
  }
}

class Check {
  private authorizations = 0;
  private readonly target: UpstreamTarget;

  constructor(
    private readonly plan: UpstreamCheckPlan,
    private readonly upstreams: StandaloneUpstreams,
    private readonly callback: LoopbackCallback | null,
    private readonly hooks: UpstreamCheckHooks,
  ) {
    this.target = {
      gatewayId: 'upstream',
      slug: new URL(plan.url).host,
      endpoint: {
        url: plan.url,
        transport: plan.transport,
        credentials: plan.credentials,
        stdio: null,
        eraPin: 'auto',
      },
    };
  }

  async run(): Promise<UpstreamReport> {
    const capabilities: ClientCapabilities = { ...SYNC_CAPABILITIES, elicitation: {} };
    const connection = await this.authorized('connect', () =>
      this.upstreams.client.open(this.target, {
        capabilities,
        listen: false,
        listener: { request: (ask) => this.answer(ask) },
      }),
    );
    try {
      const catalogue = await this.authorized('read the catalogue', () =>
        readCatalogue(connection),
      );
      const calls =
        typeof this.plan.calls === 'function' ? this.plan.calls(catalogue) : this.plan.calls;
      const era = MODERN_PROTOCOL_VERSIONS.includes(connection.protocolVersion ?? '')
        ? '2026-07-28'
        : '2025';
      const report: UpstreamReport = {
        url: this.plan.url,
        era,
        protocolVersion: connection.protocolVersion ?? null,
        server: connection.serverInfo ?? null,
        tools: namesOf(catalogue.tools, 'name'),
        // x-mcp-header is of 2026-07-28: a 2025 session sends no such headers.
        unusableTools: era === '2026-07-28' ? unusable(catalogue.tools) : [],
        resources: namesOf(catalogue.resources ?? [], 'uri'),
        resourceTemplates: namesOf(catalogue.resourceTemplates ?? [], 'uriTemplate'),
        prompts: namesOf(catalogue.prompts ?? [], 'name'),
        calls: [],
        reads: [],
        promptsGot: [],
        authorizations: 0,
      };
      for (const call of calls)
        report.calls.push(
          await this.step(`call ${call.name}`, call.name, () => this.callTool(connection, call)),
        );
      for (const uri of this.plan.reads)
        report.reads.push(
          await this.step(`read ${uri}`, uri, () =>
            this.exchange(connection, 'resources/read', { uri }),
          ),
        );
      for (const prompt of this.plan.prompts)
        report.promptsGot.push(
          await this.step(`get prompt ${prompt.name}`, prompt.name, () =>
            this.exchange(connection, 'prompts/get', {
              name: prompt.name,
              ...(prompt.arguments ? { arguments: prompt.arguments } : {}),
            }),
          ),
        );
      report.authorizations = this.authorizations;
      return report;
    } finally {
      await connection.close();
    }
  }

  /** Where the upstream's messages during a request go: notes, and answers to what it asks. */
  private readonly sink: RequestSink = {
    notify: (notification) => this.hooks.note(`upstream: ${notification.method}`),
    ask: (ask) => this.answer(ask),
  };

  /** One tool call, to its end. */
  private callTool(connection: UpstreamConnection, call: ToolCall): Promise<Result> {
    return this.exchange(connection, 'tools/call', {
      name: call.name,
      arguments: call.arguments ?? {},
    });
  }

  /**
   * One request, to its end. The upstream's questions come to `answer` as they would reach a
   * 2025 client through the gateway: elicitations on a 2025 session's streams, and each
   * `input_required` round of a 2026-07-28 upstream, answered and retried with its state.
   */
  private exchange(
    connection: UpstreamConnection,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Result> {
    return answeringRounds(
      (answers) =>
        connection.request(method, answers ? { ...params, ...answers } : params, {
          sink: this.sink,
          allowInputRequired: true,
        }),
      (ask) => this.answer(ask),
    );
  }

  /** What the command answers the upstream's requests with, standing in for a person. */
  private answer(ask: UpstreamAsk): Promise<Result> {
    switch (ask.method) {
      case 'elicitation/create':
        return Promise.resolve(
          this.plan.elicitation
            ? { action: 'accept', content: this.plan.elicitation }
            : { action: 'decline' },
        );
      case 'roots/list':
        return Promise.resolve({ roots: [] });
      default:
        return Promise.reject(
          new UpstreamRpcError(
            -32601,
            `portico upstream cannot answer ${String(ask.method)} for the upstream`,
          ),
        );
    }
  }

  /** A step whose failure is reported, not thrown: the others still run. */
  private async step(
    what: string,
    target: string,
    run: () => Promise<unknown>,
  ): Promise<StepOutcome> {
    try {
      return { target, result: await this.authorized(what, run) };
    } catch (error) {
      return { target, error: describe(error) };
    }
  }

  /** Runs `work`, and again after an authorization when the upstream needs one. */
  private async authorized<T>(what: string, work: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        if (
          !(error instanceof UpstreamAuthorizationRequired) ||
          !this.callback ||
          this.authorizations >= MAX_AUTHORIZATIONS
        )
          throw error;
        this.hooks.note(`${what}: ${error.message}`);
        await this.authorize(this.callback);
      }
    }
  }

  /** The authorization code flow, as Portico's connect page runs it, back on the loopback. */
  private async authorize(callback: LoopbackCallback): Promise<void> {
    this.authorizations += 1;
    const { credentials } = this.plan;
    if (credentials.type !== 'oauth') return;
    const upstream: OAuthUpstream = {
      gatewayId: this.target.gatewayId,
      url: this.plan.url,
      settings: credentials,
    };
    const state = randomBytes(32).toString('base64url');
    const started = await this.upstreams.oauth.begin(upstream, state);
    const returned = callback.expect(state, AUTHORIZATION_WAIT_MS);
    await this.hooks.authorize(started.authorizationUrl);
    const query = await returned;
    const refused = query.get('error');
    if (refused !== null)
      throw new CliError(
        `The provider refused the authorization: ${refused}${query.get('error_description') ? ` (${query.get('error_description')})` : ''}`,
      );
    const code = query.get('code');
    if (code === null) throw new CliError('The provider sent no authorization code');
    await this.upstreams.oauth.finish(
      upstream,
      SHARED_OWNER,
      code,
      started.codeVerifier,
      query.get('iss') ?? undefined,
    );
    this.hooks.note('authorized');
  }
}

function namesOf(items: unknown[], key: string): string[] {
  return items.map((item) => {
    const name = (item as Record<string, unknown> | null)?.[key];
    return typeof name === 'string' ? name : '?';
  });
}

function unusable(tools: unknown[]): { name: string; reason: string }[] {
  const found: { name: string; reason: string }[] = [];
  for (const tool of tools) {
    const { name, inputSchema } = (tool ?? {}) as { name?: unknown; inputSchema?: unknown };
    const scan = headerParamsOf(inputSchema);
    if (!scan.valid) found.push({ name: String(name), reason: scan.reason });
  }
  return found;
}

function describe(error: unknown): string {
  if (error instanceof UpstreamRpcError) return `${error.code} ${error.message}`;
  return errorMessage(error);
}
