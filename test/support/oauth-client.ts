import { type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import request from 'supertest';
import { csrfOf } from './admin-browser-session';

/** What an MCP client keeps between runs, in memory: as a desktop client keeps it on disk. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  /** Where the SDK sent the user's browser last. */
  authorizationUrl?: URL;

  constructor(readonly redirectUrl = 'http://127.0.0.1:53682/callback') {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Portico test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    if (!this.verifier) throw new Error('No code verifier saved');
    return this.verifier;
  }
}

/**
 * What a person does in the browser: opens the authorization URL, signs in on the login page,
 * and answers the consent page (which `read`, if given, sees first). Returns where the browser
 * lands: the client's redirect URI.
 */
export async function signInAndConsent(
  authorizationUrl: URL,
  credentials: { username: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
  read?: (consentPage: string) => void,
): Promise<URL> {
  const form = await openConsent(authorizationUrl, credentials);
  read?.(form.page);
  return form.submit(decision);
}

/**
 * The consent page after signing in, and its form, which `submit` posts (as often as asked) and
 * answers with where the browser lands.
 */
export async function openConsent(
  authorizationUrl: URL,
  credentials: { username: string; password: string },
): Promise<{ page: string; submit: (decision: 'allow' | 'deny') => Promise<URL> }> {
  const browser = request.agent(authorizationUrl.origin);
  const authorize = await browser
    .get(authorizationUrl.pathname + authorizationUrl.search)
    .expect(302);
  const consentPath =
    new URL(authorize.headers.location!).pathname + new URL(authorize.headers.location!).search;
  const toLogin = await browser.get(consentPath).expect(303);
  const loginPage = await browser.get(toLogin.headers.location!).expect(200);
  const next = unescapeHtml(/name="next" value="([^"]+)"/.exec(loginPage.text)![1]!);
  const loggedIn = await browser
    .post('/admin/login')
    .type('form')
    .send({ _csrf: csrfOf(loginPage.text), ...credentials, next })
    .expect(303);
  // 403 when the user may not use the endpoint: the page then offers only Deny.
  const consent = await browser
    .get(loggedIn.headers.location!)
    .expect((response) => expect([200, 403]).toContain(response.status));
  const sealed = unescapeHtml(/name="request" value="([^"]+)"/.exec(consent.text)![1]!);
  const submit = async (decision: 'allow' | 'deny') => {
    const decided = await browser
      .post('/oauth/consent')
      .type('form')
      .send({ _csrf: csrfOf(consent.text), request: sealed, decision });
    if (decided.status !== 303) throw new Error(`consent answered ${decided.status}`);
    return new URL(decided.headers.location!);
  };
  return { page: consent.text, submit };
}

/** What a browser submits for an attribute Handlebars escaped. */
function unescapeHtml(text: string): string {
  return text
    .replace(/&#x3D;/g, '=')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
