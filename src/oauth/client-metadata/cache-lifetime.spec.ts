import { cacheLifetimeSeconds, DEFAULT_LIFETIME_SECONDS } from './cache-lifetime';

const DAY = 24 * 3600;

describe('cacheLifetimeSeconds', () => {
  const now = Date.parse('2026-08-01T12:00:00Z');

  it('takes max-age, within the maximum', () => {
    expect(cacheLifetimeSeconds({ 'cache-control': 'public, max-age=600' }, DAY, now)).toBe(600);
    expect(cacheLifetimeSeconds({ 'cache-control': 'Max-Age="90"' }, DAY, now)).toBe(90);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=31536000' }, DAY, now)).toBe(DAY);
  });

  it('fetches again at every use after no-store, no-cache or a broken max-age', () => {
    for (const cacheControl of ['no-store', 'max-age=600, no-cache', 'max-age=soon', 'max-age=-1'])
      expect(cacheLifetimeSeconds({ 'cache-control': cacheControl }, DAY, now)).toBe(0);
  });

  it('takes Expires against Date when there is no max-age', () => {
    expect(
      cacheLifetimeSeconds(
        { expires: 'Sat, 01 Aug 2026 13:00:00 GMT', date: 'Sat, 01 Aug 2026 12:30:00 GMT' },
        DAY,
        now,
      ),
    ).toBe(1800);
    expect(cacheLifetimeSeconds({ expires: 'Sat, 01 Aug 2026 12:10:00 GMT' }, DAY, now)).toBe(600);
    expect(cacheLifetimeSeconds({ expires: '0' }, DAY, now)).toBe(0);
    expect(cacheLifetimeSeconds({ expires: 'Sat, 01 Aug 2026 11:00:00 GMT' }, DAY, now)).toBe(0);
  });

  it('counts the Age a cache on the way already spent', () => {
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=600', age: '100' }, DAY, now)).toBe(
      500,
    );
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=60', age: '100' }, DAY, now)).toBe(0);
  });

  it('keeps a document that says nothing for the default, within the maximum', () => {
    expect(cacheLifetimeSeconds({}, DAY, now)).toBe(DEFAULT_LIFETIME_SECONDS);
    expect(cacheLifetimeSeconds({}, 60, now)).toBe(60);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=600' }, 0, now)).toBe(0);
  });
});
