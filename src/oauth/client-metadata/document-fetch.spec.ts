import { opensslAvailable } from '../../../test/support/openssl-available';
import {
  type DocumentServer,
  startDocumentServer,
  testCertificate,
} from '../../../test/support/document-server';
import { startTarpit, type Tarpit } from '../../../test/fixtures/tarpit';
import { DocumentFetchError, type DocumentFetchOptions, fetchDocument } from './document-fetch';

(opensslAvailable ? describe : describe.skip)('fetchDocument', () => {
  let server: DocumentServer;
  const options = (): DocumentFetchOptions => ({
    maxBytes: 5 * 1024,
    timeoutMs: 5000,
    allowLoopback: true,
    ca: testCertificate().cert,
  });
  const fetchAt = (path: string, overrides: Partial<DocumentFetchOptions> = {}) =>
    fetchDocument(new URL(`${server.origin}${path}`), { ...options(), ...overrides });
  const refusal = async (promise: Promise<unknown>): Promise<string> => {
    const error: unknown = await promise.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DocumentFetchError);
    return (error as Error).message;
  };

  beforeAll(async () => {
    server = await startDocumentServer();
  });

  afterAll(async () => {
    await server.close();
  });

  it('reads a document and its cache headers', async () => {
    server.serve('/client.json', {
      headers: { 'cache-control': 'max-age=120' },
      body: { client_id: 'x' },
    });
    const fetched = await fetchAt('/client.json');
    expect(JSON.parse(fetched.text)).toEqual({ client_id: 'x' });
    expect(fetched.headers['cache-control']).toBe('max-age=120');
  });

  it('reaches a host name through its checked addresses, the certificate checked by that name', async () => {
    server.serve('/named.json', { body: { client_id: 'named' } });
    const url = new URL(`https://localhost:${new URL(server.origin).port}/named.json`);
    expect(JSON.parse((await fetchDocument(url, options())).text)).toEqual({ client_id: 'named' });
  });

  it('follows no redirect, and takes nothing but 200', async () => {
    server.serve('/moved.json', { status: 302, headers: { location: '/client.json' } });
    server.serve('/created.json', { status: 201, body: { client_id: 'x' } });
    const before = server.requests.length;
    expect(await refusal(fetchAt('/moved.json'))).toBe(
      'answered 302, a redirect, which is not followed: serve the document at its client_id',
    );
    expect(server.requests.slice(before)).toEqual(['/moved.json']);
    expect(await refusal(fetchAt('/missing.json'))).toBe('answered 404, not 200');
    expect(await refusal(fetchAt('/created.json'))).toBe('answered 201, not 200');
  });

  it('stops reading past maxBytes, whether the length is declared or not', async () => {
    const big = JSON.stringify({ client_id: 'x', padding: 'a'.repeat(6000) });
    server.serve('/declared.json', {
      body: big,
      headers: { 'content-length': String(big.length) },
    });
    server.serve('/chunked.json', { body: big, headers: { 'transfer-encoding': 'chunked' } });
    expect(await refusal(fetchAt('/declared.json'))).toBe('is larger than 5120 bytes');
    expect(await refusal(fetchAt('/chunked.json'))).toBe('is larger than 5120 bytes');
    const fits = await fetchAt('/chunked.json', { maxBytes: 8192 });
    expect(fits.text).toBe(big);
  });

  it('refuses a document that is not UTF-8', async () => {
    server.serve('/latin1.json', { body: Buffer.from([0x7b, 0xe9, 0x7d]) });
    expect(await refusal(fetchAt('/latin1.json'))).toBe('is not UTF-8 text');
  });

  it('gives up after timeoutMs, on a server that sends headers and then nothing', async () => {
    server.serve('/slow.json', { stall: true });
    expect(await refusal(fetchAt('/slow.json', { timeoutMs: 300 }))).toBe(
      'did not answer within 300 ms',
    );
  });

  it('gives up after timeoutMs, on a server that never finishes the handshake', async () => {
    const tarpit: Tarpit = await startTarpit();
    try {
      const url = new URL(`https://127.0.0.1:${tarpit.port}/client.json`);
      expect(await refusal(fetchDocument(url, { ...options(), timeoutMs: 300 }))).toBe(
        'did not answer within 300 ms',
      );
    } finally {
      await tarpit.close();
    }
  });

  it('never connects to loopback unless allowed, by address or by a name that resolves there', async () => {
    const before = server.requests.length;
    const special =
      'is on a special-use address (private, loopback, link-local, ...), which Portico does not fetch';
    expect(await refusal(fetchAt('/client.json', { allowLoopback: false }))).toBe(special);
    const port = new URL(server.origin).port;
    const byName = new URL(`https://localhost:${port}/client.json`);
    expect(await refusal(fetchDocument(byName, { ...options(), allowLoopback: false }))).toBe(
      special,
    );
    expect(server.requests.length).toBe(before);
  });

  it('refuses private and link-local addresses even where loopback is allowed, and http outright', async () => {
    const special =
      'is on a special-use address (private, loopback, link-local, ...), which Portico does not fetch';
    for (const address of ['10.1.2.3', '169.254.169.254', '[fd00::1]', '[::ffff:10.0.0.1]'])
      expect(
        await refusal(fetchDocument(new URL(`https://${address}/client.json`), options())),
      ).toBe(special);
    expect(await refusal(fetchDocument(new URL('http://127.0.0.1/client.json'), options()))).toBe(
      'must be fetched over https',
    );
  });

  it('checks the certificate: a server the system does not trust is refused', async () => {
    server.serve('/client.json', { body: { client_id: 'x' } });
    const { ca: _ca, ...untrusting } = options();
    const url = new URL(`${server.origin}/client.json`);
    expect(await refusal(fetchDocument(url, untrusting))).toMatch(
      /^could not be fetched \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)$/,
    );
  });
});
