import { isRole, type Role } from '../common/roles';
import { type Env, fail, boolean, httpUrl, value } from './env-values';
import { type Knobs } from './settings/knobs';
import { type ClientMetadataDocumentsConfig, type OidcConfig } from './slices/auth.settings';
import { type EmbeddingsConfig } from './slices/embeddings.settings';
import { type McpRegistryConfig } from './slices/registry.settings';

/* The services Portico reaches out to: the identity provider, client metadata, registries, embeddings. */

/** `a=b, c=d` as pairs; names may hold anything but commas and equals signs. */
function pairs(env: Env, name: string): [string, string][] {
  return (value(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [key, mapped, ...rest] = entry.split('=').map((part) => part.trim());
      if (!key || !mapped || rest.length > 0) fail(name, 'must be a list of group=value', entry);
      return [key, mapped];
    });
}

export function oidc(env: Env, knobs: Knobs): OidcConfig | null {
  const raw = value(env, 'OIDC_ISSUER');
  if (raw === undefined) return null;
  // Validated as a URL, kept verbatim: tokens must name the issuer exactly as the provider does.
  httpUrl('OIDC_ISSUER', raw);
  const roleMap = new Map<string, Role>();
  for (const [group, role] of pairs(env, 'OIDC_ROLE_MAP')) {
    if (!isRole(role)) fail('OIDC_ROLE_MAP', 'must map groups to admin, operator or member', role);
    roleMap.set(group, role);
  }
  const teamMap = new Map<string, string[]>();
  for (const [group, team] of pairs(env, 'OIDC_TEAM_MAP'))
    teamMap.set(group, [...(teamMap.get(group) ?? []), team]);
  const defaultRole = value(env, 'OIDC_DEFAULT_ROLE') ?? null;
  if (defaultRole !== null && !isRole(defaultRole))
    fail('OIDC_DEFAULT_ROLE', 'must be admin, operator or member', defaultRole);
  return {
    issuer: raw,
    clientId: value(env, 'OIDC_CLIENT_ID') ?? null,
    clientSecret: value(env, 'OIDC_CLIENT_SECRET') ?? null,
    scopes: value(env, 'OIDC_SCOPES') ?? 'openid profile email',
    audiences: (value(env, 'OIDC_AUDIENCE') ?? '')
      .split(',')
      .map((audience) => audience.trim())
      .filter((audience) => audience !== ''),
    usernameClaim: value(env, 'OIDC_USERNAME_CLAIM') ?? 'preferred_username',
    groupsClaim: value(env, 'OIDC_GROUPS_CLAIM') ?? 'groups',
    roleMap,
    teamMap,
    defaultRole: defaultRole,
    jwksCacheSeconds: knobs.integer('auth.oidcJwksCacheSeconds'),
    label: value(env, 'OIDC_LABEL') ?? 'single sign-on',
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function clientMetadataDocuments(
  env: Env,
  knobs: Knobs,
  publicUrl: string,
): ClientMetadataDocumentsConfig {
  const allowLoopback = boolean(env, 'OAUTH_CIMD_ALLOW_LOOPBACK', false);
  // draft-ietf-oauth-client-id-metadata-document §8.6: only an authorization server that itself
  // runs on loopback may fetch from it; anywhere else it would let any client id reach inside.
  if (allowLoopback && !LOOPBACK_HOSTS.has(new URL(publicUrl).hostname))
    fail(
      'OAUTH_CIMD_ALLOW_LOOPBACK',
      'may be true only when PUBLIC_URL is a loopback URL (development and tests)',
      'true',
    );
  return {
    enabled: knobs.boolean('oauthClientMetadata.enabled'),
    maxBytes: knobs.integer('oauthClientMetadata.maxBytes'),
    timeoutMs: knobs.integer('oauthClientMetadata.timeoutMs'),
    maxCacheSeconds: knobs.integer('oauthClientMetadata.maxCacheSeconds'),
    allowLoopback,
  };
}

export function mcpRegistry(env: Env, knobs: Knobs): McpRegistryConfig {
  const registries = (value(env, 'MCP_REGISTRIES') ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '')
    .map((url) => {
      const normal = httpUrl('MCP_REGISTRIES', url);
      const parsed = new URL(url);
      // Credentials would be shown wherever the registry is named; the registry API is public.
      if (parsed.username !== '' || parsed.password !== '')
        fail('MCP_REGISTRIES', 'must list URLs without credentials', url);
      if (parsed.search !== '' || parsed.hash !== '')
        fail('MCP_REGISTRIES', 'must list base URLs without query or fragment', url);
      return normal;
    });
  return {
    registries: [...new Set(registries)],
    maxBytes: knobs.integer('registry.maxBytes'),
    pageSize: knobs.integer('registry.pageSize'),
    maxPages: knobs.integer('registry.maxPages'),
    timeoutMs: knobs.integer('registry.timeoutMs'),
  };
}

export function embeddings(env: Env, knobs: Knobs): EmbeddingsConfig | null {
  const raw = value(env, 'EMBEDDINGS_URL');
  const model = value(env, 'EMBEDDINGS_MODEL');
  if (raw === undefined) {
    if (model !== undefined) fail('EMBEDDINGS_MODEL', 'needs EMBEDDINGS_URL', model);
    return null;
  }
  if (model === undefined) return fail('EMBEDDINGS_MODEL', 'must be set with EMBEDDINGS_URL', '');
  if (model.length > 200) fail('EMBEDDINGS_MODEL', 'must be at most 200 characters', model);
  return {
    url: httpUrl('EMBEDDINGS_URL', raw),
    model,
    apiKey: value(env, 'EMBEDDINGS_API_KEY') ?? null,
    queryTimeoutMs: knobs.integer('embeddings.queryTimeoutMs'),
    indexTimeoutMs: knobs.integer('embeddings.indexTimeoutMs'),
  };
}
