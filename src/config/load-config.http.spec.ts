import { tempDataDir } from '../../test/support/temp-dir';
import { ConfigError, loadConfig } from './load-config';

// HOST and the HTTP server's limits; beside load-config.spec.ts so that each part reads on its own.
describe('loadConfig: listening and HTTP limits', () => {
  const base = () => ({ DATA_DIR: tempDataDir() });

  it('listens on every interface unless HOST names one', () => {
    expect(loadConfig(base()).host).toBeNull();
    expect(loadConfig({ ...base(), HOST: ' ' }).host).toBeNull();
    for (const [raw, host] of [
      ['127.0.0.1', '127.0.0.1'],
      ['::1', '::1'],
      ['[::1]', '::1'],
      ['0.0.0.0', '0.0.0.0'],
      ['localhost', 'localhost'],
      ['portico-0.portico.svc.cluster.local', 'portico-0.portico.svc.cluster.local'],
    ])
      expect(loadConfig({ ...base(), HOST: raw }).host).toBe(host);
  });

  it('refuses a HOST that is neither an address nor a host name, naming it', () => {
    for (const bad of [
      'http://127.0.0.1',
      '127.0.0.1:3000',
      'a_b',
      '-lead',
      'a..b',
      '[x]',
      'x'.repeat(64),
    ])
      expect(() => loadConfig({ ...base(), HOST: bad })).toThrow(
        new ConfigError(
          `Invalid configuration: HOST must be an IP address or a host name (got '${bad}')`,
        ),
      );
  });

  it('has limits tighter than Node’s (60 s headers, 300 s request, no caps) by default', () => {
    expect(loadConfig(base()).httpLimits).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 10_000,
      maxStreamsPerPrincipal: 256,
    });
  });

  it('reads each limit, 0 turning the caps off', () => {
    expect(
      loadConfig({
        ...base(),
        HTTP_HEADERS_TIMEOUT_MS: '2000',
        HTTP_REQUEST_TIMEOUT_MS: '5000',
        HTTP_MAX_CONNECTIONS: '0',
        MCP_MAX_STREAMS_PER_PRINCIPAL: '0',
      }).httpLimits,
    ).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 5000,
      maxConnections: 0,
      maxStreamsPerPrincipal: 0,
    });
  });

  it('refuses limits out of range, and a request timeout shorter than the headers’', () => {
    for (const [name, bad] of [
      ['HTTP_HEADERS_TIMEOUT_MS', '99'],
      ['HTTP_HEADERS_TIMEOUT_MS', '10s'],
      ['HTTP_REQUEST_TIMEOUT_MS', '3600001'],
      ['HTTP_MAX_CONNECTIONS', '-1'],
      ['MCP_MAX_STREAMS_PER_PRINCIPAL', 'many'],
    ] as const)
      expect(() => loadConfig({ ...base(), [name]: bad })).toThrow(
        new RegExp(
          `^Invalid configuration: ${name} must be an integer from \\d+ to \\d+ \\(got '${bad}'\\)$`,
        ),
      );
    expect(() =>
      loadConfig({ ...base(), HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '15000' }),
    ).toThrow(
      new ConfigError(
        "Invalid configuration: settings.http.requestTimeoutMs (HTTP_REQUEST_TIMEOUT_MS) must not be shorter than settings.http.headersTimeoutMs (20000) (got '15000')",
      ),
    );
  });
});
