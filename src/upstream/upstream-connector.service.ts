import { Injectable } from '@nestjs/common';
import { ServerSettings } from '../config/slices/server.settings';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { credentialSecrets } from './upstream-credentials';
import { type Channel } from './transport/channel';
import { type ChannelHost, openChannel } from './transport/open-channel';
import { type BearerSource } from './transport/channel';
import { SessionConnection } from './sessions/session-connection';
import { ModernConnection } from './modern/modern-connection';
import {
  type EraVerdict,
  MODERN_PROTOCOL_VERSION,
  pinnedVerdict,
  speaksOnly,
} from './eras/protocol-era';
import { UpstreamOAuth } from './oauth/upstream-oauth.service';
import { TokenExchange } from './token-exchange/token-exchange.service';
import { type OpenOptions, type UpstreamConnection } from './upstream-connection';
import { busy, probeEra, refused, suggestsModern } from './eras/era-probe';
import { UpstreamEras } from './eras/upstream-eras.service';
import { type Admission } from './resilience/concurrency-limiter';
import { UpstreamAdmissions } from './resilience/upstream-admissions.service';
import { UpstreamPools } from './transport/upstream-pools.service';
import { StdioSupervisor } from './transport/stdio/stdio-supervisor.service';
import { UpstreamIncompatible } from './upstream-error';
import { type UpstreamTarget } from './upstream-target';
import { type OpenApiHost, openOpenApi } from './openapi/openapi-connection';
import { tunedUpstream } from '../config/settings/gateway-settings';
import { OpenApiDocuments } from './openapi/openapi-documents';

/** One open under way: what each connection it tries is opened with. */
interface Opening {
  target: UpstreamTarget;
  options: OpenOptions;
  admission: Admission;
  /** The credentials sent, which the OAuth bearer extends with each token it hands out. */
  secrets: string[];
  bearer: BearerSource | undefined;
}

/** How long a stdio probe waits for `server/discover` before taking the server for 2025. */
const STDIO_PROBE_TIMEOUT_MS = 10_000;

/** Opens connections to upstreams over the wire each gateway's transport needs. */
@Injectable()
export class UpstreamConnector {
  /** What OpenAPI gateways' connections (no MCP: a description read as tools) share. */
  private readonly openApiHost: OpenApiHost;
  private readonly channels: ChannelHost;
  constructor(
    serverSettings: ServerSettings,
    private readonly upstreamSettings: UpstreamSettings,
    pools: UpstreamPools,
    private readonly oauth: UpstreamOAuth,
    stdio: StdioSupervisor,
    private readonly admissions: UpstreamAdmissions,
    private readonly eras: UpstreamEras,
    private readonly exchange: TokenExchange,
  ) {
    this.openApiHost = {
      documents: new OpenApiDocuments(),
      server: serverSettings,
      upstream: upstreamSettings,
      pools,
    };
    this.channels = {
      stdio,
      pools,
      limits: {
        maxBytes: upstreamSettings.upstreamMessageLimitBytes,
        maxDepth: serverSettings.jsonMaxDepth,
      },
    };
  }

  get timeoutMs(): number {
    return this.upstreamSettings.upstreamTimeoutMs;
  }

  /**
   * Drops what this replica keeps of a gateway that is gone or deactivated: its parsed OpenAPI
   * description, its breaker and limiter (and their metrics), its era verdict. Kept, they outlived
   * the gateway: a deleted OpenAPI gateway's model stayed in memory for the life of the process.
   */
  forget(gatewayId: string): void {
    this.openApiHost.documents.forget(gatewayId);
    this.admissions.forget(gatewayId);
    this.eras.forget(gatewayId);
  }

  /**
   * Connects in the era the upstream speaks: a 2025 upstream gets a session (`initialize`), a
   * 2026-07-28 one none (its first request is the first exchange). The era is probed when no
   * verdict holds, and probed again once when the open fails as if it had changed. Throws an
   * UpstreamFailure: at once an UpstreamRefused while the circuit breaker is open, and an
   * UpstreamIncompatible for an upstream that speaks only versions Portico does not.
   */
  async open(target: UpstreamTarget, options: OpenOptions): Promise<UpstreamConnection> {
    const generation = this.eras.generation(target);
    try {
      return await this.openOnce(target, options);
    } catch (error) {
      // A pinned era is not doubted: the operator said what the upstream speaks.
      if (pinnedVerdict(target.endpoint.eraPin)) throw error;
      if (this.eras.generation(target) === generation && suggestsModern(error))
        this.eras.doubt(target, `initialize was refused: ${(error as Error).message}`);
      if (this.eras.generation(target) === generation) throw error;
      return this.openOnce(target, options);
    }
  }

  private async openOnce(
    target: UpstreamTarget,
    options: OpenOptions,
  ): Promise<UpstreamConnection> {
    const admission = this.admissions.for(target);
    admission.check();
    const { credentials, stdio } = target.endpoint;
    const secrets = [...credentialSecrets(credentials), ...Object.values(stdio?.env ?? {})];
    const bearer =
      credentials.type === 'oauth'
        ? await this.oauth.bearer(target, credentials, options.actingFor, secrets)
        : credentials.type === 'token-exchange'
          ? await this.exchange.bearer(target.gatewayId, credentials, options.actingFor, secrets)
          : undefined;
    const opening: Opening = { target, options, admission, secrets, bearer };
    if (target.endpoint.transport === 'openapi')
      return openOpenApi(target, { admission, secrets, bearer }, this.openApiHost);
    const context = options.authorization;
    let verdict = this.eras.verdict(target);
    let probed: ModernConnection | null = null;
    if (!verdict) {
      // What the probe hears is its verdict, not a doubt of one.
      const probing = { active: true };
      const stdio = target.endpoint.transport === 'stdio';
      const probe = await probeEra(
        // A stdio probe runs in a throw-away process, whose end nobody listens for.
        stdio
          ? () =>
              this.modern(
                { ...opening, options: { authorization: context }, bearer: undefined },
                { probe: true, probing },
              )
          : () => this.modern(opening, { probing }),
        stdio,
      );
      probing.active = false;
      verdict = probe.verdict;
      if (probe.discovered) this.eras.rememberDiscovered(target, context, probe.discovered);
      probed = probe.connection;
      await this.eras.remember(target, verdict);
    }
    switch (verdict.era) {
      case 'incompatible':
        await probed?.close();
        throw new UpstreamIncompatible(speaksOnly(verdict), verdict.supportedVersions);
      case '2026-07-28': {
        // Pinned to 2026-07-28, an upstream is not asked for a 2025 session either.
        const dualEra =
          options.callerEra === '2025' && target.endpoint.eraPin !== '2026-07-28'
            ? await this.openDualEra(opening)
            : null;
        if (dualEra) {
          await probed?.close();
          return dualEra;
        }
        if (probed) return this.readied(probed);
        return this.openModern(opening, context, verdict);
      }
      case '2025':
        await probed?.close();
        return this.openSession(opening);
    }
  }

  private async openSession(opening: Opening): Promise<SessionConnection> {
    return SessionConnection.open(await this.channel(opening), {
      ...this.common(opening),
      listen: opening.options.listen,
      parking: opening.options.parking,
    });
  }

  /**
   * A 2025 session on a modern upstream that may also speak 2025: tried once per verdict, and
   * remembered either way. Null when the upstream speaks only the modern era: it refused
   * `initialize` in any words (a -32022, a -32601, a 404 or 405), not only the SDK's; an outage
   * is not remembered and fails the open. A busy upstream (408, 425, 429) decides nothing
   * either: this session is served by translation, and the next one asks again.
   */
  private async openDualEra(opening: Opening): Promise<SessionConnection | null> {
    const { target } = opening;
    if (this.eras.acceptsSessions(target) === false) return null;
    try {
      const connection = await this.openSession(opening);
      this.eras.rememberAcceptsSessions(target, true);
      return connection;
    } catch (error) {
      if (busy(error)) return null;
      if (!suggestsModern(error) && !refused(error)) throw error;
      this.eras.rememberAcceptsSessions(target, false);
      return null;
    }
  }

  private async readied(connection: ModernConnection): Promise<ModernConnection> {
    try {
      await connection.ready();
      return connection;
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  /** A 2026-07-28 connection: no handshake; a discover only when this context has none. */
  private async openModern(
    opening: Opening,
    context: string,
    verdict: EraVerdict,
  ): Promise<ModernConnection> {
    const { target } = opening;
    const discover = this.eras.discovered(target, context);
    const connection = await this.readied(
      await this.modern(opening, {
        discover,
        version: verdict.version ?? MODERN_PROTOCOL_VERSION,
      }),
    );
    if (!discover && connection.discoverResult)
      this.eras.rememberDiscovered(target, context, connection.discoverResult);
    return connection;
  }

  private async modern(
    opening: Opening,
    extra: {
      probe?: boolean;
      probing?: { active: boolean };
      discover?: ModernConnection['discoverResult'];
      version?: string;
    },
  ): Promise<ModernConnection> {
    const { target } = opening;
    const version = extra.version ?? MODERN_PROTOCOL_VERSION;
    const channel = await this.channel(opening, { modernVersion: version, probe: extra.probe });
    const common = this.common(opening);
    return ModernConnection.start(channel, {
      ...common,
      // A server that ignores a request before `initialize` must not hold the open for long.
      timeoutMs: extra.probe
        ? Math.min(common.timeoutMs, STDIO_PROBE_TIMEOUT_MS)
        : common.timeoutMs,
      listen: opening.options.listen,
      version,
      discover: extra.discover ?? null,
      headerParams: this.eras.headerParams(target),
      doubt: (reason) => {
        if (!extra.probing?.active) this.eras.doubt(target, reason);
      },
      pipe: target.endpoint.transport === 'stdio',
    });
  }

  private common({ target, options, admission, secrets }: Opening) {
    const tuned = tunedUpstream(this.upstreamSettings, target.settings);
    return {
      timeoutMs: tuned.timeoutMs,
      callMaxMs: tuned.callMaxMs,
      capabilities: options.capabilities ?? {},
      secrets,
      listener: options.listener,
      admission,
      retry: tuned.resilience.retry,
    };
  }

  /** The channel the gateway's transport needs; `modernVersion` is stated to a 2026-07-28 one. */
  private channel(
    { target: { gatewayId, endpoint }, bearer }: Opening,
    modern: { modernVersion?: string; probe?: boolean } = {},
  ): Promise<Channel> {
    return openChannel(this.channels, gatewayId, endpoint, bearer, modern);
  }
}
