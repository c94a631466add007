import { Injectable, Logger } from '@nestjs/common';
import { BodyTooLarge, cappedResponse } from '../../common/remote-body';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { CallerTokens } from '../../auth/principal-resolver';
import { Metrics } from '../../observability/metrics';
import { type TokenExchangeSettings } from '../upstream-credentials';
import { type ActingFor } from '../upstream-connection';
import { type BearerSource } from '../transport/channel';
import { UpstreamFailure } from '../upstream-error';
import { ExchangedTokens, type TokenFor } from './exchanged-tokens';
import {
  type IssuedToken,
  readTokenResponse,
  type TokenRequest,
  tokenServiceRequest,
} from './token-service-request';

/** A token service's answer is read up to this size; a longer one is refused. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Tokens handed out that stay among the secrets cut out of failures. */
const MAX_REMEMBERED = 4;

/**
 * Token exchange towards upstreams (RFC 8693): each call to a `token-exchange` gateway carries a
 * token the configured security token service issued for that upstream, in exchange for the
 * caller's own (Portico's authorization server's, or the identity provider's), held by caller and
 * gateway until shortly before it expires. The caller's token goes to the token service only,
 * never upstream, into a log or into an error. Portico's own work (sync) has no caller: it uses a
 * token of Portico's own, a client credentials grant at the same service.
 */
@Injectable()
export class TokenExchange {
  private readonly logger = new Logger(TokenExchange.name);
  private readonly tokens = new ExchangedTokens((settings, request) => this.ask(settings, request));

  constructor(
    private readonly config: UpstreamSettings,
    private readonly callerTokens: CallerTokens,
    private readonly metrics: Metrics,
  ) {}

  /**
   * The bearer of a token-exchange upstream's connection, for whom it acts (absent: Portico's own
   * work). The first token is obtained here, so that a caller whose token cannot be exchanged
   * learns it before anything is sent upstream. Each token sent joins `secrets`.
   */
  async bearer(
    gatewayId: string,
    settings: TokenExchangeSettings,
    actingFor: ActingFor | undefined,
    secrets: string[],
  ): Promise<BearerSource> {
    const who = (): TokenFor => {
      if (!actingFor) return 'portico';
      const caller = actingFor.subject ? this.callerTokens.of(actingFor.subject) : null;
      if (!caller)
        throw new UpstreamFailure(
          'authorization',
          "this upstream takes a token exchanged for the caller's own at a token service, which takes only a token of Portico's authorization server or of the identity provider (not an API token, a login token or an admin page's session), and Portico holds none of this caller's that is still valid",
          401,
        );
      return { subject: actingFor.subject!, token: caller.token };
    };
    const fixed = secrets.length;
    const source: BearerSource = {
      token: async (stale) => {
        const token = await this.tokens.get(gatewayId, settings, who(), stale);
        if (!secrets.includes(token)) secrets.push(token);
        if (secrets.length > fixed + MAX_REMEMBERED) secrets.splice(fixed, 1);
        return token;
      },
      tooNarrow: (scope) =>
        Promise.resolve(
          new UpstreamFailure(
            'authorization',
            `the upstream wants scope '${scope ?? ''}', beyond the exchanged token's; set the gateway's token exchange scope`,
            403,
          ),
        ),
    };
    await source.token();
    return source;
  }

  /** One request to the token service; an UpstreamFailure that names no token when it fails. */
  private async ask(settings: TokenExchangeSettings, request: TokenRequest): Promise<IssuedToken> {
    const { body, headers } = tokenServiceRequest(settings, request);
    let status: number;
    let json: unknown;
    try {
      const response = await fetch(settings.tokenUrl, {
        method: 'POST',
        headers,
        body,
        // A redirect could carry the caller's token elsewhere: it is refused, not followed.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.upstreamTimeoutMs),
      });
      status = response.status;
      // Up to MAX_ANSWER_BYTES; null when it is not JSON or is larger (a broken read is a failure).
      json = await cappedResponse(response, MAX_ANSWER_BYTES)
        .json()
        .catch((error: unknown) => {
          // By name: fetch's SyntaxError may come from another realm (under jest's VM, for one).
          if (error instanceof BodyTooLarge || (error as Error | null)?.name === 'SyntaxError')
            return null;
          throw error;
        });
    } catch (error) {
      this.metrics.tokenExchanges.inc({ kind: request.kind, outcome: 'failed' });
      const why = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'failed';
      this.logger.warn(`Token exchange at ${new URL(settings.tokenUrl).origin} ${why}`);
      throw new UpstreamFailure('authorization', `the token service could not be reached (${why})`);
    }
    const read = readTokenResponse(status, json);
    this.metrics.tokenExchanges.inc({
      kind: request.kind,
      outcome: 'refused' in read ? 'refused' : 'ok',
    });
    if ('refused' in read) {
      // The service's own words, which could echo what it was sent, lose any token first.
      const sent = [request.kind === 'exchange' ? request.subjectToken : '', settings.clientSecret];
      const failure = new UpstreamFailure(
        'authorization',
        `the token service refused ${request.kind === 'own' ? "Portico's own token" : 'to exchange the token'}: ${read.refused}`,
      ).redacted(sent.filter((secret): secret is string => !!secret));
      this.logger.warn(`At ${new URL(settings.tokenUrl).origin}, ${failure.message}`);
      throw failure;
    }
    return read;
  }
}
