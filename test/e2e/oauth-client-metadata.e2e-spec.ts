import { opensslAvailable } from '../support/openssl-available';
import {
  auth,
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import request from 'supertest';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import {
  type DocumentServer,
  startDocumentServer,
  testCertificate,
  CLIENT_REDIRECT,
  clientDocument,
} from '../support/document-server';
import { textOf } from '../support/html-text';
import { signInAndConsent } from '../support/oauth-client';
import { type PorticoProcess, startPorticoProcess } from '../support/portico-process';
import { ADMIN_PASSWORD } from '../support/test-app';

const MODERN = '2026-07-28';
const ADMIN = { username: 'admin', password: ADMIN_PASSWORD };
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * An MCP client that names itself by the URL of its Client ID Metadata Document, as SDK v2's
 * `clientMetadataUrl` does, keeping what it learns in memory.
 */
class DocumentClientProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  readonly redirectUrl = CLIENT_REDIRECT;

  constructor(readonly clientMetadataUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Portico document client',
      redirect_uris: [CLIENT_REDIRECT],
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
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

const modernClient = () =>
  new Client(
    { name: 'cimd-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );

/**
 * Portico in its own process, trusting the test's certificate authority the way an operator makes
 * Node trust one (NODE_EXTRA_CA_CERTS), and allowed to fetch from loopback because it runs there
 * itself (OAUTH_CIMD_ALLOW_LOOPBACK): the metadata documents are served by an https
 * server of the test on 127.0.0.1.
 */
(opensslAvailable ? describe : describe.skip)(
  'Client ID Metadata Documents, with an SDK v2 client on the 2026-07-28 wire',
  () => {
    let portico: PorticoProcess;
    let documents: DocumentServer;
    let upstream: UpstreamFixture;
    /** PUBLIC_URL: the process's default, http://localhost:<port>. */
    let publicUrl: string;
    let endpoint: URL;

    beforeAll(async () => {
      documents = await startDocumentServer();
      upstream = await startUpstream({ tools: [echoTool('hello', 'up')] });
      portico = await startPorticoProcess({
        ADMIN_PASSWORD,
        OAUTH_CIMD_ALLOW_LOOPBACK: 'true',
        NODE_EXTRA_CA_CERTS: testCertificate().certPath,
      });
      publicUrl = portico.baseUrl.replace('127.0.0.1', 'localhost');
      const login = await request(publicUrl).post('/api/v1/auth/token').send(ADMIN).expect(200);
      const api = request.agent(publicUrl).set('Authorization', `Bearer ${login.body.accessToken}`);
      const gateway = (
        await api.post('/api/v1/gateways').send({ name: 'Up', url: upstream.url }).expect(201)
      ).body;
      const tools = (await api.get(`/api/v1/tools?gatewayId=${gateway.id}`).expect(200)).body;
      const server = await api
        .post('/api/v1/servers')
        .send({ name: 'Docs', toolIds: tools.items.map((tool: { id: string }) => tool.id) })
        .expect(201);
      endpoint = new URL(`/servers/${server.body.id}/mcp`, publicUrl);
    });

    afterAll(async () => {
      await portico?.stop();
      await documents?.close();
      await upstream?.close();
    });

    const fetchesOf = (path: string) => documents.requests.filter((seen) => seen === path).length;

    /** GET /oauth/authorize as a browser would, for a client id and redirect URI. */
    const authorize = (clientId: string, redirectUri = CLIENT_REDIRECT) =>
      request(publicUrl).get('/oauth/authorize').query({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        resource: endpoint.href,
      });

    it('advertises client_id_metadata_document_supported and iss in authorization responses', async () => {
      const metadata = await request(publicUrl)
        .get('/.well-known/oauth-authorization-server')
        .expect(200);
      expect(metadata.body).toMatchObject({
        issuer: publicUrl,
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
        registration_endpoint: `${publicUrl}/oauth/register`,
      });
    });

    it('runs the whole flow with the document’s URL as client_id: consent by name and host, code + PKCE, MCP call, refresh', async () => {
      const clientId = `${documents.origin}/acme/client.json`;
      documents.serve('/acme/client.json', {
        headers: { 'cache-control': 'max-age=300' },
        body: clientDocument(clientId),
      });
      const provider = new DocumentClientProvider(clientId);
      const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
      await expect(modernClient().connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
      // No registration: the SDK took the URL as its client_id, as the metadata allows.
      expect(provider.client?.client_id).toBe(clientId);
      expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);

      let consentPage = '';
      const landed = await signInAndConsent(provider.authorizationUrl!, ADMIN, 'allow', (page) => {
        consentPage = page;
      });
      // The name the document gives, the host it came from, the whole client id and where the
      // browser returns (draft §8.5; MCP: the redirect's host clearly shown, loopback warned of).
      expect(textOf(consentPage)).toContain(
        `Acme Agent from 127.0.0.1:${new URL(documents.origin).port} asks to use the virtual server Docs as admin.`,
      );
      expect(consentPage).toContain(`<dt>Client</dt><dd><code>${clientId}</code></dd>`);
      expect(consentPage).toContain(
        `<dt>Returns to</dt><dd><strong>${new URL(CLIENT_REDIRECT).host}</strong>: <code>${CLIENT_REDIRECT}</code></dd>`,
      );
      expect(textOf(consentPage)).toContain('This client returns to a program on this computer');
      expect(`${landed.origin}${landed.pathname}`).toBe(CLIENT_REDIRECT);
      expect(landed.searchParams.get('iss')).toBe(publicUrl);

      // The SDK checks iss (RFC 9207) and redeems the code with its PKCE verifier.
      await transport.finishAuth(landed.searchParams);
      expect(provider.saved).toMatchObject({ token_type: 'Bearer', scope: 'mcp' });

      const client = modernClient();
      await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const result = await client.callTool({ name: 'up-hello', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'up:hello' }]);
      await client.close();

      // A refresh rotates the tokens; the client is still the document's.
      const first = provider.saved!;
      expect(await auth(provider, { serverUrl: endpoint })).toBe('AUTHORIZED');
      expect(provider.saved!.refresh_token).not.toBe(first.refresh_token);
      const again = modernClient();
      await again.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
      expect((await again.listTools()).tools.map((tool) => tool.name)).toEqual(['up-hello']);
      await again.close();

      // Fetched once: authorization, consent, code exchange and refresh used the copy kept.
      expect(fetchesOf('/acme/client.json')).toBe(1);
    });

    it('fetches a document that forbids caching at every use', async () => {
      const clientId = `${documents.origin}/fresh/client.json`;
      documents.serve('/fresh/client.json', {
        headers: { 'cache-control': 'no-store' },
        body: clientDocument(clientId),
      });
      await authorize(clientId).expect(302);
      await authorize(clientId).expect(302);
      expect(fetchesOf('/fresh/client.json')).toBe(2);
    });

    it('refuses a document whose client_id is another URL, without redirecting', async () => {
      const clientId = `${documents.origin}/impostor/client.json`;
      documents.serve('/impostor/client.json', {
        body: clientDocument(`${documents.origin}/acme/client.json`),
      });
      const refused = await authorize(clientId).expect(400);
      expect(refused.body).toEqual({
        error: 'invalid_client',
        error_description: `The client metadata document ${clientId} has a client_id that is not exactly the URL it was fetched from`,
      });
      expect(refused.headers.location).toBeUndefined();
    });

    it('refuses a redirect URI the document does not list, and one answered by a redirect', async () => {
      const clientId = `${documents.origin}/strict/client.json`;
      documents.serve('/strict/client.json', { body: clientDocument(clientId) });
      const elsewhere = await authorize(clientId, 'https://evil.example.com/cb').expect(400);
      expect(elsewhere.body).toEqual({
        error: 'invalid_request',
        error_description: 'Unregistered redirect_uri',
      });
      expect(elsewhere.headers.location).toBeUndefined();

      const movedId = `${documents.origin}/moved/client.json`;
      documents.serve('/moved/client.json', {
        status: 301,
        headers: { location: '/strict/client.json' },
      });
      const before = fetchesOf('/strict/client.json');
      const moved = await authorize(movedId).expect(400);
      expect(moved.body.error).toBe('invalid_client');
      expect(moved.body.error_description).toContain(
        'answered 301, a redirect, which is not followed',
      );
      expect(fetchesOf('/strict/client.json')).toBe(before);
    });

    it('refuses a document that asks for client authentication Portico does not do', async () => {
      const clientId = `${documents.origin}/jwt/client.json`;
      documents.serve('/jwt/client.json', {
        body: clientDocument(clientId, {
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: `${documents.origin}/jwks.json`,
        }),
      });
      const refused = await authorize(clientId).expect(400);
      expect(refused.body.error).toBe('invalid_client');
      expect(refused.body.error_description).toContain('private_key_jwt is not supported');
    });
  },
);
