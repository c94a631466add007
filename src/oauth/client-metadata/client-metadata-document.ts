import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { isJsonObject, nestingDepth } from '../../common/json-value';
import { unstorableJson } from '../../common/untrusted-text';
import { redirectUriProblem } from '../redirect-uri';

/** The longest client_id URL taken: it travels in the signed consent link and is shown to people. */
export const MAX_CLIENT_ID_URL_LENGTH = 1024;

/** The longest client_name taken: the consent page shows it. */
const MAX_CLIENT_NAME_LENGTH = 200;

/** Grant types Portico serves; a document may list only these. */
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/**
 * Whether a client_id names its client by the URL of a Client ID Metadata Document
 * (draft-ietf-oauth-client-id-metadata-document), as opposed to the UUID of a client registered
 * here (RFC 7591), which never starts with https://.
 */
export function isClientIdUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * Why a client_id cannot be a Client Identifier URL (draft §3), or null: https, no user name or
 * password, a path other than `/` (as the MCP spec and SDK ask), no `.` or `..` segments, no
 * fragment. It is compared as the exact string, so it is checked as written, not as parsed.
 */
export function clientIdUrlProblem(clientId: string): string | null {
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH)
    return `is longer than ${MAX_CLIENT_ID_URL_LENGTH} characters`;
  // The URL parser would quietly drop or rewrite these; an identifier must not depend on that.
  if (/[\s\\\p{Cc}]/u.test(clientId))
    return 'must not contain spaces, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (clientId.includes('#')) return 'must not have a fragment';
  const afterScheme = clientId.slice('https://'.length);
  const authorityEnd = afterScheme.search(/[/?]/);
  const path =
    authorityEnd === -1 || afterScheme[authorityEnd] !== '/'
      ? ''
      : afterScheme.slice(authorityEnd).split('?')[0]!;
  if (path === '' || path === '/')
    return 'must have a path, such as https://app.example.com/oauth/client.json';
  if (path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment)))
    return 'must not have . or .. path segments';
  return null;
}

export type DocumentVerdict =
  { ok: true; client: OAuthClientInformationFull } | { ok: false; problem: string };

function refused(problem: string): DocumentVerdict {
  return { ok: false, problem };
}

/**
 * The client a fetched Client ID Metadata Document describes, or why it cannot be used. Its
 * `client_id` must be exactly the URL it was fetched from; it needs a `client_name` and the
 * `redirect_uris` an authorization request is checked against (MCP authorization spec). It holds
 * no shared secret (draft §4.1), so the client is public: `token_endpoint_auth_method` must be
 * `none` or absent. `private_key_jwt`, which the draft allows, is not supported here.
 */
export function parseClientMetadataDocument(
  clientId: string,
  text: string,
  maxDepth: number,
): DocumentVerdict {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return refused('is not JSON');
  }
  if (!isJsonObject(document)) return refused('is not a JSON object');
  if (nestingDepth(document, maxDepth) > maxDepth)
    return refused(`nests deeper than ${maxDepth} levels`);
  const unstorable = unstorableJson([document]);
  if (unstorable !== null) return refused(unstorable.replace('the definition', 'it'));
  if (document.client_id !== clientId)
    return refused('has a client_id that is not exactly the URL it was fetched from');
  if ('client_secret' in document || 'client_secret_expires_at' in document)
    return refused('must not contain client_secret or client_secret_expires_at');
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    return refused(
      `has token_endpoint_auth_method ${JSON.stringify(method)}: Portico takes public clients ` +
        '(none) by metadata document; private_key_jwt is not supported',
    );
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refused(`is not valid client metadata: ${issue?.path.join('.')} ${issue?.message}`);
  }
  const metadata = parsed.data;
  const name = metadata.client_name?.trim() ?? '';
  if (name === '' || name.length > MAX_CLIENT_NAME_LENGTH)
    return refused(`needs a client_name of 1 to ${MAX_CLIENT_NAME_LENGTH} characters`);
  if (metadata.redirect_uris.length === 0) return refused('needs at least one redirect_uris entry');
  const redirectProblem = metadata.redirect_uris.map(redirectUriProblem).find((p) => p !== null);
  if (redirectProblem) return refused(`lists a redirect URI Portico refuses: ${redirectProblem}`);
  if (metadata.grant_types?.some((grant) => !GRANT_TYPES.has(grant)))
    return refused('may list only authorization_code and refresh_token as grant_types');
  if (metadata.response_types?.some((type) => type !== 'code'))
    return refused('may list only code as response_types');
  return {
    ok: true,
    client: { ...metadata, client_id: clientId, token_endpoint_auth_method: 'none' },
  };
}
