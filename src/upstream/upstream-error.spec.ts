import {
  classifyUpstreamError,
  UpstreamFailure,
  upstreamFailure,
  UpstreamRpcError,
} from './upstream-error';

describe('classifyUpstreamError', () => {
  it('names the network cause that fetch hides', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    const failure = classifyUpstreamError(new TypeError('fetch failed', { cause: refused }), 1000);
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect((failure as UpstreamFailure).kind).toBe('unreachable');
    expect(failure.message).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('names an error without a message by its code', () => {
    const reset = Object.assign(new Error(''), { code: 'ECONNRESET' });
    expect(classifyUpstreamError(reset, 1).message).toBe('ECONNRESET');
  });

  it('turns a timeout into the configured limit', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const failure = classifyUpstreamError(timeout, 2500) as UpstreamFailure;
    expect(failure.kind).toBe('timeout');
    expect(failure.message).toBe('no answer within 2500 ms');
  });

  it('recognises invalid JSON from another realm by name', () => {
    const foreign = { name: 'SyntaxError', message: 'Unexpected end of JSON input' };
    const failure = classifyUpstreamError(foreign, 1) as UpstreamFailure;
    expect(failure.kind).toBe('protocol');
    expect(failure.message).toBe('the upstream sent invalid JSON (Unexpected end of JSON input)');
  });

  it('blames Portico, not the upstream, for a stack overflow or a JSON limit of its own', () => {
    for (const local of [
      new RangeError('Maximum call stack size exceeded'),
      { name: 'JsonLimitError', message: 'the value is nested too deep' },
    ]) {
      const failure = classifyUpstreamError(local, 1) as UpstreamFailure;
      expect({ kind: failure.kind, message: failure.message }).toEqual({
        kind: 'internal',
        message: local.message,
      });
    }
  });

  it('keeps messages to one bounded line', () => {
    const message = classifyUpstreamError(new Error(`a\nb ${'x'.repeat(1000)}`), 1).message;
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThanOrEqual(501);
    expect(message.endsWith('…')).toBe(true);
  });

  it('cuts the credentials sent out of what the upstream echoed, before clipping', () => {
    const token = 's3cret-token-value';
    const echo = (padding: number) =>
      new UpstreamFailure('http', `${'x'.repeat(padding)} Bearer ${token}; X-Key: k3y-value`, 401);
    const secrets = [token, 'k3y-value', 'abc'];
    expect(classifyUpstreamError(echo(10), 1, secrets).message).toMatch(
      /Bearer \[redacted\]; X-Key: \[redacted\]$/,
    );
    // Clipped at 500 characters in the middle of the token: no part of it may show.
    expect(classifyUpstreamError(echo(450), 1, secrets).message).not.toContain('s3c');
    expect(classifyUpstreamError(new Error('abc is fine'), 1, secrets).message).toBe('abc is fine');
  });

  it("cuts credentials out of an upstream's own JSON-RPC error, message and data", () => {
    const token = 'tok_0123456789abcdef';
    const error = new UpstreamRpcError(-32000, `bad token ${token.slice(4)}`, {
      header: `Bearer ${token}`,
    });
    const classified = classifyUpstreamError(error, 1, [token]) as UpstreamRpcError;
    expect(classified).toBeInstanceOf(UpstreamRpcError);
    expect(classified.code).toBe(-32000);
    expect(classified.message).toBe('bad token [redacted]');
    expect(classified.data).toEqual({ header: 'Bearer [redacted]' });
  });

  it('passes its own failures through', () => {
    const own = new UpstreamFailure('protocol', 'the upstream repeated a page cursor');
    expect(classifyUpstreamError(own, 1)).toBe(own);
  });

  it('reports an upstream error answer as a failure where only a reason is wanted', () => {
    const failure = upstreamFailure(new UpstreamRpcError(-32601, 'Method not found'), 1);
    expect(failure.message).toBe('the upstream answered with an error: -32601 Method not found');
  });
});

describe('UpstreamFailure', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');

  it('says when to try again on the failure, in whole seconds', () => {
    const failure = new UpstreamFailure('http', 'HTTP 429', 429, new Date(now + 1500));
    expect(failure.retryAfterSeconds(now)).toBe(2);
    expect(failure.redacted(['HTTP']).retryAt).toBe(failure.retryAt);
  });
});
