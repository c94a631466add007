import { isStorableText, repairedText, storableJson, storableJsonText } from './untrusted-text';

describe('storableJsonText', () => {
  it.each([
    ['a NUL in a value', { a: 'x\u0000y' }, { a: 'xy' }],
    ['an unpaired high surrogate', { a: '\uD800x' }, { a: '\uFFFDx' }],
    ['an unpaired low surrogate, in a key', { ['k\uDC00']: 1 }, { ['k\uFFFD']: 1 }],
    ['a pair cut in half', { a: '\u{1F600}'.slice(0, 1) }, { a: '\uFFFD' }],
  ])('repairs %s', (_case, value, repaired) => {
    expect(JSON.parse(storableJsonText(JSON.stringify(value)))).toEqual(repaired);
  });

  it.each([
    ['a surrogate pair', { a: '\u{1F600}' }],
    ['text of backslashes before "u0000" and "ud800"', { a: 'C:\\u0000\\ud800' }],
    ['other control characters', { a: '\u0001\t\n' }],
  ])('keeps %s as it is', (_case, value) => {
    const text = JSON.stringify(value);
    expect(storableJsonText(text)).toBe(text);
  });

  it('removes a NUL after a backslash, and keeps the backslash', () => {
    expect(JSON.parse(storableJsonText(JSON.stringify({ a: '\\\u0000' })))).toEqual({ a: '\\' });
  });
});

describe('storableJson', () => {
  it('returns a value PostgreSQL can store as it is, and a repaired copy of one it cannot', () => {
    const fine = { a: ['b', { c: 1 }] };
    expect(storableJson(fine)).toBe(fine);
    expect(storableJson({ a: ['b\u0000'] })).toEqual({ a: ['b'] });
    expect(storableJson(null)).toBeNull();
  });
});

describe('repairedText', () => {
  it('removes NULs and makes unpaired surrogates U+FFFD, keeping pairs', () => {
    expect(repairedText('a\u0000b \uD800 \uDC00 \u{1F600}')).toBe('ab \uFFFD \uFFFD \u{1F600}');
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\u{1F600}'.slice(0, 1))).toBe(false);
    const fine = 'plain \u{1F600}';
    expect(isStorableText(fine)).toBe(true);
    expect(repairedText(fine)).toBe(fine);
  });
});
