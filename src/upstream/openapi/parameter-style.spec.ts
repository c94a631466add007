import { headerValue, pathValue, queryPairs } from './parameter-style';

// The examples of OpenAPI 3.1 §4.8.12.4 (Style Examples): color = "blue", ["blue","black","brown"]
// and { R: 100, G: 200, B: 150 }.
const primitive = 'blue';
const array = ['blue', 'black', 'brown'];
const object = { R: 100, G: 200, B: 150 };

describe('path parameters', () => {
  it.each([
    ['simple', false, primitive, 'blue'],
    ['simple', true, primitive, 'blue'],
    ['simple', false, array, 'blue,black,brown'],
    ['simple', true, array, 'blue,black,brown'],
    ['simple', false, object, 'R,100,G,200,B,150'],
    ['simple', true, object, 'R=100,G=200,B=150'],
    ['label', false, primitive, '.blue'],
    ['label', true, primitive, '.blue'],
    ['label', false, array, '.blue,black,brown'],
    ['label', true, array, '.blue.black.brown'],
    ['label', false, object, '.R,100,G,200,B,150'],
    ['label', true, object, '.R=100.G=200.B=150'],
    ['matrix', false, primitive, ';color=blue'],
    ['matrix', true, primitive, ';color=blue'],
    ['matrix', false, array, ';color=blue,black,brown'],
    ['matrix', true, array, ';color=blue;color=black;color=brown'],
    ['matrix', false, object, ';color=R,100,G,200,B,150'],
    ['matrix', true, object, ';R=100;G=200;B=150'],
  ] as const)('%s explode=%s of %j is %s', (style, explode, value, expected) => {
    expect(pathValue('color', value, style, explode)).toBe(expected);
  });

  it('percent-escapes what would add a segment, and refuses "." and ".."', () => {
    expect(pathValue('name', '../admin', 'simple', false)).toBe('..%2Fadmin');
    expect(pathValue('name', 'a/b?c#d', 'simple', false)).toBe('a%2Fb%3Fc%23d');
    for (const value of ['.', '..', ''])
      expect(() => pathValue('name', value, 'simple', false)).toThrow(
        'a path parameter may not be empty, "." or ".."',
      );
  });

  it('refuses nested values it cannot serialise', () => {
    expect(() => pathValue('name', [{ a: 1 }], 'simple', false)).toThrow('nested value');
  });
});

describe('query parameters', () => {
  it.each([
    ['form', true, primitive, ['color=blue']],
    ['form', false, primitive, ['color=blue']],
    ['form', true, array, ['color=blue', 'color=black', 'color=brown']],
    ['form', false, array, ['color=blue,black,brown']],
    ['form', true, object, ['R=100', 'G=200', 'B=150']],
    ['form', false, object, ['color=R,100,G,200,B,150']],
    ['spaceDelimited', false, array, ['color=blue%20black%20brown']],
    ['spaceDelimited', false, object, ['color=R%20100%20G%20200%20B%20150']],
    ['pipeDelimited', false, array, ['color=blue%7Cblack%7Cbrown']],
    ['pipeDelimited', false, object, ['color=R%7C100%7CG%7C200%7CB%7C150']],
    ['spaceDelimited', true, array, ['color=blue', 'color=black', 'color=brown']],
    ['deepObject', true, object, ['color%5BR%5D=100', 'color%5BG%5D=200', 'color%5BB%5D=150']],
  ] as const)('%s explode=%s of %j is %j', (style, explode, value, expected) => {
    expect(queryPairs('color', value, style, explode)).toEqual(expected);
  });

  it('escapes what would add a parameter', () => {
    expect(queryPairs('q', 'a&b=c', 'form', true)).toEqual(['q=a%26b%3Dc']);
  });

  it('refuses a deepObject that is not an object', () => {
    expect(() => queryPairs('q', 'x', 'deepObject', true)).toThrow('takes an object');
    expect(() => queryPairs('q', ['x'], 'deepObject', true)).toThrow('takes an object');
  });
});

describe('header parameters', () => {
  it.each([
    [false, primitive, 'blue'],
    [false, array, 'blue,black,brown'],
    [false, object, 'R,100,G,200,B,150'],
    [true, object, 'R=100,G=200,B=150'],
  ] as const)('simple explode=%s of %j is %s', (explode, value, expected) => {
    expect(headerValue('X-Color', value, explode)).toBe(expected);
  });

  it('refuses a line break, which would add a header', () => {
    expect(() => headerValue('X-Color', 'blue\r\nX-Evil: 1', false)).toThrow('line break');
  });

  it('refuses what HTTP would not send: control characters and characters past ASCII', () => {
    for (const value of ['\u0001', 'a\u0007b', '\u20ac', 'caf\u00e9', '\u007f'])
      expect(() => headerValue('X-Trace', value, false)).toThrow('printable ASCII and tabs');
    expect(headerValue('X-Trace', 'a\tb ~', false)).toBe('a\tb ~');
  });
});
