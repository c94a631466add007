import { gatewaySlug, SLUG_MAX_LENGTH } from './gateway-slug';

describe('gatewaySlug', () => {
  it('lower-cases and joins words with dashes', () => {
    expect(gatewaySlug('Gateway 1')).toBe('gateway-1');
    expect(gatewaySlug('  My  Great_Server! ')).toBe('my-greatserver');
  });

  it('transliterates accents', () => {
    expect(gatewaySlug('Café Zürich')).toBe('cafe-zurich');
  });

  it('yields nothing for a name without letters or digits', () => {
    expect(gatewaySlug('!!!')).toBe('');
    expect(gatewaySlug('   ')).toBe('');
  });

  it('caps the length without a trailing dash', () => {
    const slug = gatewaySlug(`${'a'.repeat(SLUG_MAX_LENGTH - 1)} b`);
    expect(slug).toHaveLength(SLUG_MAX_LENGTH - 1);
    expect(slug.endsWith('-')).toBe(false);
  });
});
