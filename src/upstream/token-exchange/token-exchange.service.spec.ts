import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { writeEndlessly } from '../../../test/fixtures/endless-body';
import { type CallerTokens } from '../../auth/principal-resolver';
import { type UpstreamSettings } from '../../config/slices/upstream.settings';
import { type TokenExchangeSettings } from '../upstream-credentials';
import { type Metrics } from '../../observability/metrics';
import { TokenExchange } from './token-exchange.service';

describe('TokenExchange against a token service that answers badly', () => {
  let service: Server;
  let sent = 0;
  let endless = true;
  let settings: TokenExchangeSettings;

  beforeAll(async () => {
    service = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (!endless) return void response.end('not JSON');
      response.write('{"access_token":"');
      writeEndlessly(response, undefined, (bytes) => (sent += bytes));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    settings = {
      type: 'token-exchange',
      tokenUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}/token`,
      dialect: 'rfc8693',
      clientId: 'portico',
      clientSecret: 'secret',
      clientAuth: 'client_secret_basic',
      actor: false,
    };
  });

  afterAll(async () => {
    service.closeAllConnections();
    await new Promise((resolve) => service.close(resolve));
  });

  const exchange = () =>
    new TokenExchange(
      { upstreamTimeoutMs: 10_000 } as UpstreamSettings,
      {} as CallerTokens,
      { tokenExchanges: { inc: () => undefined } } as unknown as Metrics,
    );

  it('reads 64 KiB of an endless answer, refuses it, and drops the connection', async () => {
    await expect(exchange().bearer('gateway', settings, undefined, [])).rejects.toMatchObject({
      kind: 'authorization',
      message: "the token service refused Portico's own token: the answer holds no access_token",
    });
    // What the socket took before the read stopped, not the whole of an endless answer.
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses an answer that is not JSON as holding no token, not as unreachable', async () => {
    endless = false;
    await expect(exchange().bearer('gateway', settings, undefined, [])).rejects.toMatchObject({
      kind: 'authorization',
      message: "the token service refused Portico's own token: the answer holds no access_token",
    });
  });
});
