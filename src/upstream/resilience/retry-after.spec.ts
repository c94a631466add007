import { upstreamRetryAt } from './retry-after';

describe('upstreamRetryAt', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');

  it("reads a 429's or 503's Retry-After in seconds or as an HTTP date", () => {
    expect(upstreamRetryAt(429, '30', now)?.toISOString()).toBe('2026-12-03T12:00:30.000Z');
    expect(upstreamRetryAt(503, ' 5 ', now)?.toISOString()).toBe('2026-12-03T12:00:05.000Z');
    expect(upstreamRetryAt(503, 'Thu, 03 Dec 2026 12:10:00 GMT', now)?.toISOString()).toBe(
      '2026-12-03T12:10:00.000Z',
    );
  });

  it('cuts a wait past a day to a day, however far the upstream says', () => {
    for (const header of ['99999999999999999999999', 'Fri, 01 Jan 9999 00:00:00 GMT'])
      expect(upstreamRetryAt(429, header, now)?.toISOString()).toBe('2026-12-04T12:00:00.000Z');
  });

  it('takes nothing from another status, a past time or a header that is neither form', () => {
    expect(upstreamRetryAt(500, '30', now)).toBeNull();
    expect(upstreamRetryAt(400, '30', now)).toBeNull();
    for (const header of [
      '0',
      '-5',
      '1e400',
      'soon',
      '',
      'Thu, 03 Dec 2026 11:00:00 GMT',
      undefined,
      ['3'],
    ])
      expect(upstreamRetryAt(429, header, now)).toBeNull();
  });
});
