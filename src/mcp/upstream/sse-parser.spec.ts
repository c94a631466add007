import { SseParser } from './sse-parser';

describe('SseParser', () => {
  it('yields the data of complete events across chunk boundaries', () => {
    const parser = new SseParser();
    expect(parser.push('event: message\nid: 1\nda')).toEqual([]);
    expect(parser.push('ta: {"a":1}\n\ndata: {"b"')).toEqual(['{"a":1}']);
    expect(parser.push(':2}\n\n')).toEqual(['{"b":2}']);
  });

  it('skips comments and events without data, and joins multi-line data', () => {
    const parser = new SseParser();
    expect(parser.push(': keepalive\n\nid: 7\nretry: 100\n\ndata: one\ndata:two\n\n')).toEqual([
      'one\ntwo',
    ]);
  });

  it('accepts CRLF line endings', () => {
    expect(new SseParser().push('data: x\r\n\r\ndata: y\r\n\r\n')).toEqual(['x', 'y']);
  });
});
