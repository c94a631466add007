import { comparableUri, splitVirtualUri, virtualUri } from './resource-uri';

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

  it('spells every form of one URI the same way, and two URIs apart', () => {
    const secret = 'file:///notes/secret.md';
    for (const alias of [
      secret,
      'FILE:///notes/secret.md',
      'file:///notes/%73ecret%2Emd',
      'file:///notes/./secret.md',
      'file:///notes/drafts/../secret.md',
      'file:///../notes/secret.md',
    ])
      expect(comparableUri(alias)).toBe(secret);
    expect(comparableUri('HTTPS://Example.COM/A/%7e/b?q=%2f#F')).toBe(
      'https://example.com/A/~/b?q=%2F#F',
    );
    expect(comparableUri('file:///notes/Secret.md')).not.toBe(secret);
    expect(comparableUri('file:///notes/secret.md/')).not.toBe(secret);
    expect(comparableUri('file:///notes%2Fsecret.md')).not.toBe(secret);
    expect(comparableUri('urn:isbn:0451450523')).toBe('urn:isbn:0451450523');
    expect(comparableUri('not a uri %zz')).toBe('not a uri %zz');
  });
});
