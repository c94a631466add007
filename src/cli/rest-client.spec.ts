import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { PorticoClient, porticoUrl } from './rest-client';

describe('porticoUrl', () => {
  it('takes --url, else PORTICO_URL', () => {
    expect(porticoUrl('http://a.example:1/x/', { PORTICO_URL: 'http://b.example' })).toBe(
      'http://a.example:1/x',
    );
    expect(porticoUrl(undefined, { PORTICO_URL: 'https://b.example/', HOST: '10.0.0.5' })).toBe(
      'https://b.example',
    );
  });

  it('else reaches this host’s Portico where HOST and PORT make it listen', () => {
    expect(porticoUrl(undefined, {})).toBe('http://127.0.0.1:3000');
    expect(porticoUrl(undefined, { PORT: '8080', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:8080');
    expect(porticoUrl(undefined, { HOST: '::' })).toBe('http://127.0.0.1:3000');
    expect(porticoUrl(undefined, { HOST: '10.0.0.5' })).toBe('http://10.0.0.5:3000');
    expect(porticoUrl(undefined, { HOST: '::1', PORT: '3100' })).toBe('http://[::1]:3100');
    expect(porticoUrl(undefined, { HOST: '[::1]' })).toBe('http://[::1]:3000');
    expect(porticoUrl(undefined, { HOST: 'portico.internal' })).toBe(
      'http://portico.internal:3000',
    );
  });
});

describe('PorticoClient, when Portico does not answer in time', () => {
  let server: Server;
  let client: PorticoClient;

  beforeAll(async () => {
    // Starts every answer and never finishes it.
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"partial":');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new PorticoClient(url, { PORTICO_TOKEN: 'token' });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('gives up on a download whose body does not come whole, in its own words', async () => {
    await expect(client.download('/api/v1/backup', 200)).rejects.toThrow(
      /^No answer from Portico at http:\/\/127\.0\.0\.1:\d+ to GET \/api\/v1\/backup within 0\.2 s$/,
    );
  });

  it('says that a change it gave up on may have taken effect', async () => {
    await expect(client.request('PUT', '/api/v1/config?prune=true', {}, 200)).rejects.toThrow(
      /to PUT \/api\/v1\/config within 0\.2 s; the PUT may have taken effect all the same$/,
    );
  });
});
