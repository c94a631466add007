import { type Dispatcher } from 'undici';
import { shapeResponse } from './response-shape';

const response = (statusCode: number, headers: Record<string, string> = {}) =>
  ({ statusCode, headers }) as unknown as Dispatcher.ResponseData;
const json = { 'content-type': 'application/json' };

describe('responses as tool results', () => {
  it('make a JSON object the structured content and the body the text', () => {
    expect(shapeResponse(response(200, json), '{"a":1}', false, 64)).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('wrap JSON that is not an object', () => {
    expect(shapeResponse(response(200, json), '[1,2]', false, 64).structuredContent).toEqual({
      result: [1, 2],
    });
  });

  it('make a 4xx, a 5xx and a redirect errors carrying the status and a bounded body', () => {
    const notFound = shapeResponse(response(404, json), '{"message":"nope"}', false, 64);
    expect(notFound).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 404: {"message":"nope"}' }],
    });
    const huge = shapeResponse(response(500), 'x'.repeat(10_000), false, 64);
    expect((huge.content[0] as { text: string }).text.length).toBeLessThan(2_100);
    const moved = shapeResponse(
      response(302, { location: 'https://elsewhere.example/' }),
      '',
      false,
      64,
    );
    expect((moved.content[0] as { text: string }).text).toBe(
      'HTTP 302 to https://elsewhere.example/ (Portico does not follow redirects)',
    );
  });

  it('refuse a body past the size limit or nested past JSON_MAX_DEPTH', () => {
    expect(shapeResponse(response(200, json), '{', true, 64).isError).toBe(true);
    const deep = '['.repeat(100) + ']'.repeat(100);
    expect(shapeResponse(response(200, json), deep, false, 64).isError).toBe(true);
  });
});
