import { type ClientCapabilities, type JSONRPCResponse } from '@modelcontextprotocol/server';
import { urlRound } from './url-rounds';

const LINK = {
  mode: 'url',
  elicitationId: 'e1',
  url: 'https://example.com/connect',
  message: 'Connect',
};

function needsLink(data: unknown): JSONRPCResponse {
  return { jsonrpc: '2.0', id: 7, error: { code: -32042, message: 'Connect first', data } };
}

const URL_DECLARED = { elicitation: { url: {} } };
const state = () => 'sealed-state';

describe('urlRound', () => {
  it('makes a URL-mode round of the elicitations for a client that declared URL elicitation', () => {
    expect(urlRound(needsLink({ elicitations: [LINK] }), URL_DECLARED, true, state)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        resultType: 'input_required',
        inputRequests: {
          url_1: {
            method: 'elicitation/create',
            params: { mode: 'url', url: LINK.url, message: 'Connect' },
          },
        },
        requestState: 'sealed-state',
      },
    });
  });

  it('answers -32021 with the capability and the link to a client that did not declare it', () => {
    const without: ClientCapabilities[] = [{}, { elicitation: {} }, { elicitation: { form: {} } }];
    for (const declared of without)
      expect(urlRound(needsLink({ elicitations: [LINK] }), declared, true, state)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32021,
          message: 'Connect first',
          data: { elicitations: [LINK], requiredCapabilities: URL_DECLARED },
        },
      });
    expect(urlRound(needsLink('not an object'), {}, true, state)).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: URL_DECLARED } },
    });
  });

  it('answers -32010 with the link for a request that takes no rounds', () => {
    expect(urlRound(needsLink({ elicitations: [LINK] }), URL_DECLARED, false, state)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32010, message: 'Connect first', data: { elicitations: [LINK] } },
    });
  });

  it("calls an elicitation that names no URL the upstream's fault, never -32042", () => {
    for (const data of [
      undefined,
      {},
      { elicitations: [] },
      { elicitations: 'https://example.com' },
      { elicitations: [LINK, { mode: 'url', message: 'no url' }] },
      { elicitations: [null] },
    ])
      expect(urlRound(needsLink(data), URL_DECLARED, true, state)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32012,
          message: 'The upstream asked for a URL elicitation that names no URL: Connect first',
        },
      });
  });

  it('leaves every other answer alone', () => {
    const other: JSONRPCResponse = { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'x' } };
    expect(urlRound(other, URL_DECLARED, true, state)).toBeNull();
    expect(urlRound({ jsonrpc: '2.0', id: 7, result: {} }, {}, true, state)).toBeNull();
  });
});
