import { parseCookies } from './cookie-header';

describe('parseCookies', () => {
  it('reads names and decoded values', () => {
    const cookies = parseCookies('a=1; portico_session=x.y%3D; quoted="v"');
    expect(cookies.get('a')).toBe('1');
    expect(cookies.get('portico_session')).toBe('x.y=');
    expect(cookies.get('quoted')).toBe('v');
  });

  it('keeps the first of repeated names and skips junk', () => {
    const cookies = parseCookies('a=first; a=second; =nameless; novalue; b=%E0%A4%A');
    expect(cookies.get('a')).toBe('first');
    expect(cookies.get('b')).toBe('%E0%A4%A');
    expect(cookies.size).toBe(2);
  });

  it('copes with no header', () => {
    expect(parseCookies(undefined).size).toBe(0);
  });
});
