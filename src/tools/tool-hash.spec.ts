import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';
import { contentHash, hashedBackendName, parseHashedBackendName, toolHash } from './tool-hash';

describe('toolHash', () => {
  const gatewayId = '7d3f8f4e-2c1a-4c55-9a59-2e1c0f6b9a10';

  it('is the first 12 hex of sha256(gateway_id NUL original_name)', () => {
    const expected = createHash('sha256')
      .update(`${gatewayId}\u0000get-time`)
      .digest('hex')
      .slice(0, 12);
    expect(toolHash(gatewayId, 'get-time')).toBe(expected);
    expect(toolHash(gatewayId, 'get-time')).toMatch(/^[0-9a-f]{12}$/);
  });

  it('differs per gateway and per name', () => {
    const other = '0b0c7e1e-5d8c-4b1c-8d0e-3b8a4f2e1c00';
    expect(toolHash(gatewayId, 'get-time')).not.toBe(toolHash(other, 'get-time'));
    expect(toolHash(gatewayId, 'get-time')).not.toBe(toolHash(gatewayId, 'get-date'));
  });

  it('cannot be confused by moving characters across the separator', () => {
    expect(toolHash('ab', 'c')).not.toBe(toolHash('a', 'bc'));
  });
});

describe('hashed backend names', () => {
  it('round-trip', () => {
    const name = hashedBackendName('0123456789ab', 'save_contact');
    expect(name).toBe('0123456789ab_save_contact');
    expect(parseHashedBackendName(name)).toEqual({
      hash: '0123456789ab',
      originalName: 'save_contact',
    });
  });

  it('keep underscores of the original name', () => {
    expect(parseHashedBackendName('0123456789ab__x_')).toEqual({
      hash: '0123456789ab',
      originalName: '_x_',
    });
  });

  it.each([
    '0123456789AB_x',
    '0123456789a_x',
    '0123456789ab',
    '0123456789ab_',
    'gateway-1-get_time',
  ])('rejects %s', (name) => {
    expect(parseHashedBackendName(name)).toBeNull();
  });
});

describe('contentHash', () => {
  const tool = {
    description: 'd',
    inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } },
  };

  it('ignores key order', () => {
    const reordered = {
      inputSchema: { properties: { b: { type: 'number' }, a: { type: 'string' } }, type: 'object' },
      description: 'd',
    };
    expect(contentHash(reordered)).toBe(contentHash(tool));
  });

  it.each([
    ['description', { description: 'other' }],
    ['input schema', { inputSchema: { type: 'object' } }],
    ['output schema', { outputSchema: { type: 'object' } }],
    ['annotations', { annotations: { readOnlyHint: true } }],
    ['_meta', { meta: { ui: { resourceUri: 'ui://x' } } }],
    ['title', { title: 'Title' }],
  ])('changes with the %s', (_part, change) => {
    expect(contentHash({ ...tool, ...change })).not.toBe(contentHash(tool));
  });

  it('keeps array order significant', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});
