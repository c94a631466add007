import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { type McpCall } from '../protocol/mcp-call';
import { upstreamParams } from './upstream-params';

const UI = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const LEVEL = 'io.modelcontextprotocol/logLevel';

const call = (era: McpCall['era'], logLevel: McpCall['logLevel'] = null) =>
  ({ era, clientCapabilities: UI, logLevel }) as unknown as McpCall;
const upstream = (protocolVersion: string) => ({ protocolVersion }) as UpstreamConnection;
const modern = upstream('2026-07-28');
const legacy = upstream('2025-11-25');

/** A request whose `_meta` claims capabilities and a level of its own, beside a progress token. */
const claiming = {
  name: 'clock',
  _meta: { progressToken: 7, [CAPABILITIES]: {}, [LEVEL]: 'debug' },
};

describe('upstreamParams', () => {
  it("states a modern request's own capabilities and level to a 2026-07-28 upstream", () => {
    expect(upstreamParams(call('modern', 'warning'), modern, claiming)).toEqual({
      name: 'clock',
      _meta: { progressToken: 7, [CAPABILITIES]: UI, [LEVEL]: 'warning' },
    });
  });

  it("states a 2025 session's capabilities to a 2026-07-28 upstream, whatever its _meta claims", () => {
    expect(upstreamParams(call('legacy'), modern, claiming)).toEqual({
      name: 'clock',
      _meta: { progressToken: 7, [CAPABILITIES]: UI },
    });
  });

  it("keeps a modern client's envelope from a 2025 upstream", () => {
    expect(upstreamParams(call('modern', 'warning'), legacy, claiming)).toEqual({
      name: 'clock',
      _meta: { progressToken: 7 },
    });
    expect(
      upstreamParams(call('modern'), legacy, { name: 'clock', _meta: { [LEVEL]: 'debug' } }),
    ).toEqual({ name: 'clock' });
  });

  it("passes a 2025 session's params to a 2025 upstream as they came", () => {
    const params = {
      name: 'clock',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } },
    };
    expect(upstreamParams(call('legacy'), legacy, params)).toBe(params);
  });
});
