import {
  clientIdUrlProblem,
  isClientIdUrl,
  MAX_CLIENT_ID_URL_LENGTH,
  parseClientMetadataDocument,
} from './client-metadata-document';

const CLIENT_ID = 'https://app.example.com/oauth/client.json';

const document = (overrides: Record<string, unknown> = {}) => ({
  client_id: CLIENT_ID,
  client_name: 'Example MCP Client',
  client_uri: 'https://app.example.com',
  redirect_uris: ['http://127.0.0.1:3000/callback', 'https://app.example.com/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...overrides,
});

const problemOf = (body: unknown, clientId = CLIENT_ID) => {
  const verdict = parseClientMetadataDocument(
    clientId,
    typeof body === 'string' ? body : JSON.stringify(body),
    64,
  );
  return verdict.ok ? null : verdict.problem;
};

describe('isClientIdUrl', () => {
  it('tells a metadata document URL from a registered client’s UUID', () => {
    expect(isClientIdUrl(CLIENT_ID)).toBe(true);
    expect(isClientIdUrl('5f0c6c2e-0000-4000-8000-000000000000')).toBe(false);
    expect(isClientIdUrl('http://app.example.com/client.json')).toBe(false);
  });
});

describe('clientIdUrlProblem', () => {
  it.each([
    CLIENT_ID,
    'https://app.example.com:8443/client',
    'https://app.example.com:443/client',
    'https://127.0.0.1:4000/client.json',
    'https://app.example.com/client.json?v=2',
  ])('takes %s', (clientId) => {
    expect(clientIdUrlProblem(clientId)).toBeNull();
  });

  it.each([
    ['http://app.example.com/client.json', 'must use https'],
    [
      'https://app.example.com',
      'must have a path, such as https://app.example.com/oauth/client.json',
    ],
    [
      'https://app.example.com/',
      'must have a path, such as https://app.example.com/oauth/client.json',
    ],
    [
      'https://app.example.com?x=/a',
      'must have a path, such as https://app.example.com/oauth/client.json',
    ],
    [
      'https://app.example.com?x=1',
      'must have a path, such as https://app.example.com/oauth/client.json',
    ],
    ['https://user:pw@app.example.com/client.json', 'must not contain a user name or password'],
    ['https://user@app.example.com/client.json', 'must not contain a user name or password'],
    ['https://app.example.com/client.json#top', 'must not have a fragment'],
    ['https://app.example.com/a/../client.json', 'must not have . or .. path segments'],
    ['https://app.example.com/./client.json', 'must not have . or .. path segments'],
    ['https://app.example.com/a/%2E%2e/client.json', 'must not have . or .. path segments'],
    [
      'https://app.example.com/a\\client.json',
      'must not contain spaces, control characters or backslashes',
    ],
    [
      'https://app.example.com/a client.json',
      'must not contain spaces, control characters or backslashes',
    ],
    [
      'https://app.example.com/client.json\t',
      'must not contain spaces, control characters or backslashes',
    ],
    ['https://', 'is not a URL'],
    [
      `https://app.example.com/${'a'.repeat(MAX_CLIENT_ID_URL_LENGTH)}`,
      `is longer than ${MAX_CLIENT_ID_URL_LENGTH} characters`,
    ],
  ])('refuses %s: %s', (clientId, problem) => {
    expect(clientIdUrlProblem(clientId)).toBe(problem);
  });
});

describe('parseClientMetadataDocument', () => {
  it('makes a public client of a valid document', () => {
    const verdict = parseClientMetadataDocument(CLIENT_ID, JSON.stringify(document()), 64);
    expect(verdict).toEqual({
      ok: true,
      client: {
        ...document(),
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
      },
    });
  });

  it('takes a document without token_endpoint_auth_method as a public client', () => {
    const { token_endpoint_auth_method: _method, ...rest } = document();
    const verdict = parseClientMetadataDocument(CLIENT_ID, JSON.stringify(rest), 64);
    expect(verdict.ok && verdict.client.token_endpoint_auth_method).toBe('none');
  });

  it('needs the document’s client_id to be exactly the URL it came from', () => {
    const problem = 'has a client_id that is not exactly the URL it was fetched from';
    expect(problemOf(document({ client_id: 'https://other.example.com/client.json' }))).toBe(
      problem,
    );
    expect(problemOf(document({ client_id: 'https://APP.example.com/oauth/client.json' }))).toBe(
      problem,
    );
    expect(problemOf(document({ client_id: `${CLIENT_ID}/` }))).toBe(problem);
    const { client_id: _id, ...anonymous } = document();
    expect(problemOf(anonymous)).toBe(problem);
    // The same URL written another way is another client (simple string comparison).
    expect(problemOf(document(), 'https://app.example.com:443/oauth/client.json')).toBe(problem);
  });

  it('needs JSON, an object, a client_name and redirect URIs Portico allows', () => {
    expect(problemOf('{"client_id":')).toBe('is not JSON');
    expect(problemOf('[1,2]')).toBe('is not a JSON object');
    expect(problemOf(document({ client_name: undefined }))).toBe(
      'needs a client_name of 1 to 200 characters',
    );
    expect(problemOf(document({ client_name: '   ' }))).toBe(
      'needs a client_name of 1 to 200 characters',
    );
    expect(problemOf(document({ client_name: 'x'.repeat(201) }))).toBe(
      'needs a client_name of 1 to 200 characters',
    );
    expect(problemOf(document({ redirect_uris: [] }))).toBe(
      'needs at least one redirect_uris entry',
    );
    expect(problemOf(document({ redirect_uris: ['http://evil.example.com/cb'] }))).toBe(
      'lists a redirect URI Portico refuses: http://evil.example.com/cb must use https (http only to localhost)',
    );
    expect(problemOf(document({ redirect_uris: 'https://app.example.com/cb' }))).toMatch(
      /^is not valid client metadata: redirect_uris /,
    );
  });

  it('refuses secrets and every client authentication but none', () => {
    expect(problemOf(document({ client_secret: 's3cret' }))).toBe(
      'must not contain client_secret or client_secret_expires_at',
    );
    expect(problemOf(document({ client_secret_expires_at: 0 }))).toBe(
      'must not contain client_secret or client_secret_expires_at',
    );
    for (const method of ['client_secret_post', 'client_secret_basic', 'private_key_jwt'])
      expect(problemOf(document({ token_endpoint_auth_method: method }))).toBe(
        `has token_endpoint_auth_method "${method}": Portico takes public clients (none) by metadata document; private_key_jwt is not supported`,
      );
  });

  it('refuses grant and response types Portico does not serve', () => {
    expect(problemOf(document({ grant_types: ['authorization_code', 'client_credentials'] }))).toBe(
      'may list only authorization_code and refresh_token as grant_types',
    );
    expect(problemOf(document({ response_types: ['code', 'token'] }))).toBe(
      'may list only code as response_types',
    );
  });

  it('refuses what the database cannot keep, and nesting past the limit', () => {
    expect(problemOf(document({ client_name: 'a\u0000b' }))).toBe(
      'it contains NUL characters (U+0000)',
    );
    expect(problemOf(`{"client_id":"${CLIENT_ID}","client_name":"\\ud800"}`)).toBe(
      'it contains unpaired UTF-16 surrogates',
    );
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(problemOf(document({ jwks: deep }))).toBe('nests deeper than 64 levels');
  });
});
