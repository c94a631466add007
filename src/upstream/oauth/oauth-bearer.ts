import { type OAuthSettings } from '../../gateways/gateway-credentials';
import { type BearerSource } from '../transport/http-channel';
import { UpstreamAuthorizationRequired, UpstreamFailure } from '../upstream-error';
import { type UpstreamTarget } from '../upstream-target';
import { SHARED_OWNER } from './upstream-oauth-token.entity';
import { type UpstreamOAuth } from './upstream-oauth.service';

/** The tokens handed out that stay among the secrets cut out of failures. */
const MAX_REMEMBERED_TOKENS = 4;

/**
 * The bearer of an OAuth upstream's connection: the gateway's connected account, or on a per-user
 * gateway the acting person's own. The first token is obtained here, so that a caller who has
 * none learns it (with the link to connect) before anything is sent upstream. Each token it hands
 * out joins `secrets`, to be cut out of any failure's text as fixed credentials are.
 */
export async function oauthBearer(
  oauth: UpstreamOAuth,
  target: UpstreamTarget,
  settings: OAuthSettings,
  actingFor: { userId: string | null } | undefined,
  secrets: string[],
): Promise<BearerSource> {
  let owner = SHARED_OWNER;
  if (settings.mode === 'per-user' && actingFor) {
    if (actingFor.userId === null)
      throw new UpstreamAuthorizationRequired(
        'Each user calls this upstream with their own account, and this credential belongs to no Portico user.',
        null,
      );
    owner = actingFor.userId;
  }
  const { url } = target.endpoint;
  if (url === null) throw new UpstreamFailure('unreachable', 'the gateway has no URL');
  const upstream = { gatewayId: target.gatewayId, url, settings };
  const source: BearerSource = {
    token: async (stale) => {
      const token = await oauth.accessToken(upstream, owner, stale);
      if (!secrets.includes(token)) secrets.push(token);
      if (secrets.length > MAX_REMEMBERED_TOKENS) secrets.splice(0, 1);
      return token;
    },
    tooNarrow: (scope) => oauth.tooNarrow(upstream, owner, scope),
  };
  await source.token();
  return source;
}
