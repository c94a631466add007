import { Logger } from '@nestjs/common';
import { type UpstreamConnection } from '../upstream/upstream-connection';
import { UpstreamFailure, UpstreamIncompatible } from '../upstream/upstream-error';
import { type CatalogueReader } from './catalogue.reader';
import { GatewayWatch } from './gateway-watch';

const GATEWAY = {
  id: 'g',
  slug: 'watched',
  url: 'http://127.0.0.1:9/mcp',
  transport: 'streamable-http' as const,
  authType: 'none' as const,
  authSecret: null,
  stdioCommand: null,
  stdioArgs: null,
  stdioCwd: null,
  stdioEnv: null,
  eraPin: 'auto' as const,
};

/** A watch whose every connection attempt throws `error`, stopped after its first attempt. */
async function lostAfter(error: Error): Promise<string[]> {
  const lost: string[] = [];
  let attempted!: () => void;
  const attempt = new Promise<void>((resolve) => (attempted = resolve));
  const reader = {
    timeoutMs: 1000,
    watch: () => {
      attempted();
      return Promise.reject(error);
    },
  } as unknown as CatalogueReader;
  const watch = new GatewayWatch(
    GATEWAY,
    reader,
    {
      changed: () => undefined,
      lost: (reason, status) => lost.push(`${status}: ${reason}`),
      seen: () => undefined,
    },
    new Logger('test'),
  );
  jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  watch.start();
  await attempt;
  await new Promise((resolve) => setImmediate(resolve));
  await watch.stop();
  return lost;
}

describe('a gateway watch that cannot connect', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reports the upstream unreachable when nothing answered', async () => {
    expect(await lostAfter(new UpstreamFailure('unreachable', 'connection refused'))).toEqual([
      'unreachable: connection refused',
    ]);
    expect(await lostAfter(new UpstreamFailure('timeout', 'no answer within 1000 ms'))).toEqual([
      'unreachable: no answer within 1000 ms',
    ]);
  });

  it('reports the upstream failing when it answered with an error or with what is not MCP', async () => {
    expect(await lostAfter(new UpstreamFailure('http', 'HTTP 500', 500))).toEqual([
      'failing: HTTP 500',
    ]);
    expect(await lostAfter(new UpstreamFailure('protocol', 'not JSON'))).toEqual([
      'failing: not JSON',
    ]);
    expect(await lostAfter(new UpstreamIncompatible('speaks only 2024-11-05', []))).toEqual([
      'incompatible: speaks only 2024-11-05',
    ]);
  });

  it("does not blame the upstream for Portico's own failure", async () => {
    expect(await lostAfter(new RangeError('Maximum call stack size exceeded'))).toEqual([]);
  });
});

describe('a gateway watch stopped while it connects', () => {
  it('stops at once, and closes the session the upstream opens after that', async () => {
    let open!: (session: UpstreamConnection) => void;
    let attempted!: () => void;
    const attempt = new Promise<void>((resolve) => (attempted = resolve));
    const reader = {
      timeoutMs: 30_000,
      // A hanging upstream: the connection opens only when the test says.
      watch: () => {
        attempted();
        return new Promise<UpstreamConnection>((resolve) => (open = resolve));
      },
    } as unknown as CatalogueReader;
    const watch = new GatewayWatch(
      GATEWAY,
      reader,
      { changed: () => undefined, lost: () => undefined, seen: () => undefined },
      new Logger('test'),
    );
    watch.start();
    await attempt;
    await watch.stop();

    const close = jest.fn(() => Promise.resolve());
    open({ close } as unknown as UpstreamConnection);
    await new Promise((resolve) => setImmediate(resolve));
    expect(close).toHaveBeenCalledTimes(1);
  });
});
