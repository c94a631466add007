import { splitVirtualUri, virtualUri } from './resource-uri';

describe('virtual resource URIs', () => {
  it('puts the slug in front, and takes it off at the first +', () => {
    const uri = virtualUri('crm', 'git+https://example.com/a+b');
    expect(uri).toBe('crm+git+https://example.com/a+b');
    expect(splitVirtualUri(uri)).toEqual({
      gatewaySlug: 'crm',
      uri: 'git+https://example.com/a+b',
    });
  });

  it('keeps two gateways whose slugs and URIs would run together apart', () => {
    expect(virtualUri('a', 'b-c://x')).not.toBe(virtualUri('a-b', 'c://x'));
  });

  it('finds no slug in a URI without one', () => {
    expect(splitVirtualUri('file:///notes.md')).toBeNull();
    expect(splitVirtualUri('+file:///x')).toBeNull();
  });
});
