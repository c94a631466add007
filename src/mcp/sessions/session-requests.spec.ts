import { type JSONRPCResponse } from '@modelcontextprotocol/server';
import { MISSING_CLIENT_CAPABILITY, TOOL_CALL_REFUSED } from '../protocol/mcp-errors';
import { inSessionEra } from './session-requests';

const PORTICO = { name: 'Portico: Team', version: '1.0.0' };
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

describe('inSessionEra', () => {
  it('passes a result in 2025 words as it came', () => {
    const answer: JSONRPCResponse = {
      jsonrpc: '2.0',
      id: 1,
      result: { content: [], _meta: { progressToken: 3 } },
    };
    expect(inSessionEra(answer, PORTICO)).toEqual(answer);
  });

  it('drops what 2025 has no word for and names Portico, not the upstream, as the server', () => {
    const answer: JSONRPCResponse = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        contents: [],
        resultType: 'complete',
        ttlMs: 5000,
        cacheScope: 'public',
        _meta: { [SERVER_INFO]: { name: 'upstream', version: '9' }, trace: 'kept' },
      },
    };
    expect(inSessionEra(answer, PORTICO)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { contents: [], _meta: { [SERVER_INFO]: PORTICO, trace: 'kept' } },
    });
  });

  it('refuses a call whose approval the client cannot be asked for, in 2025 terms', () => {
    const answer: JSONRPCResponse = {
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: MISSING_CLIENT_CAPABILITY,
        message: 'needs elicitation',
        data: { approval: 'unavailable', requiredCapabilities: { elicitation: {} } },
      },
    };
    expect(inSessionEra(answer, PORTICO)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: TOOL_CALL_REFUSED,
        message: 'needs elicitation',
        data: { approval: 'unavailable' },
      },
    });
    const upstreams = { ...answer, error: { ...answer.error, data: {} } };
    expect(inSessionEra(upstreams, PORTICO)).toBe(upstreams);
  });
});
