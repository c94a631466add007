import { type ScryptParameters } from '../../common/scrypt-parameters';
import { type Role } from '../../common/roles';

/** An external OpenID Connect identity provider: admin SSO, and access tokens it issues. */
export interface OidcConfig {
  issuer: string;
  /** Portico's client at the provider, for admin SSO; null: tokens only, no SSO. */
  clientId: string | null;
  clientSecret: string | null;
  scopes: string;
  /** `aud` values that make one of its access tokens good for any endpoint its user may use. */
  audiences: readonly string[];
  usernameClaim: string;
  groupsClaim: string;
  /** Group → role; a person gets the highest role of their groups. */
  roleMap: ReadonlyMap<string, Role>;
  /** Group → team names. */
  teamMap: ReadonlyMap<string, readonly string[]>;
  /** The role of someone in no mapped group; null: such people are refused. */
  defaultRole: Role | null;
  jwksCacheSeconds: number;
  /** The SSO button's words. */
  label: string;
}

/**
 * Clients named by the URL of their Client ID Metadata Document (the MCP authorization spec's
 * preferred registration): how the embedded authorization server fetches and keeps those documents.
 */
export interface ClientMetadataDocumentsConfig {
  /** Whether such client ids are accepted (and advertised); registration works either way. */
  enabled: boolean;
  /** The most bytes read of a document; a longer one is refused. */
  maxBytes: number;
  /** How long one fetch may take, from connecting to the last byte. */
  timeoutMs: number;
  /** The longest a document is kept before it is fetched again, whatever its cache headers say. */
  maxCacheSeconds: number;
  /** Fetch from loopback addresses too; only for a Portico that itself runs on loopback. */
  allowLoopback: boolean;
}

/** Sign-in: the break-glass admin, password hashing, token lifetimes, the identity provider and client metadata documents. Injected by the modules that need it. */
export abstract class AuthSettings {
  abstract readonly adminUsername: string;
  abstract readonly adminPassword: string | null;
  /** scrypt's parameters for new password hashes: N = 2^PASSWORD_HASH_COST. */
  abstract readonly passwordHashing: ScryptParameters;
  abstract readonly tokenTtlSeconds: number;
  /**
   * How long a cached user, API token or OAuth grant is trusted before it is read again
   * (AUTH_CACHE_TTL_SECONDS); changes drop it at once through the event bus. While the database
   * is unavailable, the last one read keeps serving.
   */
  abstract readonly authCacheTtlSeconds: number;
  /**
   * Active API tokens one user may hold (settings.auth.maxApiTokensPerUser): each is a row, a
   * cached lookup and, scoped to servers, a key of its own in the policies' views.
   */
  abstract readonly maxApiTokensPerUser: number;
  abstract readonly oidc: OidcConfig | null;
  abstract readonly clientMetadataDocuments: ClientMetadataDocumentsConfig;
}
