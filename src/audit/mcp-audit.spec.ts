import { canonicalJson } from '../common/canonical-json';
import { auditedArguments, mcpOutcome, withoutSecrets } from './mcp-audit';

describe("what the audit trail keeps of an MCP call's arguments", () => {
  it('digests equal arguments alike whatever the order of their keys', () => {
    const a = auditedArguments({ b: 1, a: { y: [1, 2], x: 'z' } }, 'digest');
    const b = auditedArguments({ a: { x: 'z', y: [1, 2] }, b: 1 }, 'digest');
    expect(a.argumentsDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(a.argumentsDigest).toBe(b.argumentsDigest);
    expect(a.arguments).toBeNull();
    expect(auditedArguments({ b: 2 }, 'digest').argumentsDigest).not.toBe(a.argumentsDigest);
  });

  it('keeps nothing with none', () => {
    expect(auditedArguments({ a: 1 }, 'none')).toEqual({ argumentsDigest: null, arguments: null });
  });

  it('keeps the arguments with full, but never a secret-named field', () => {
    const kept = auditedArguments(
      { repo: 'x', auth: { password: 'hunter22', apiKey: 'k-123456', nested: [{ token: 't' }] } },
      'full',
    );
    expect(kept.arguments).toEqual({
      repo: 'x',
      auth: { password: '[redacted]', apiKey: '[redacted]', nested: [{ token: '[redacted]' }] },
    });
    expect(JSON.stringify(kept.arguments)).not.toContain('hunter22');
  });

  it('never keeps credentials under common names, in header pairs or in URLs', () => {
    const kept = withoutSecrets({
      pwd: 'p1',
      db_pwd: 'p2',
      auth: 'Basic dXNlcjpwYXNz',
      bearer: 'b',
      jwt: 'j',
      session_id: 's',
      ssh_key: 'k1',
      accessKey: 'k2',
      encryption_key: 'k3',
      otp: '123456',
      creds: 'c',
      headers: [['Authorization', 'Bearer sk-live-1']],
      dsn: 'postgres://bob:s3cret@db.example/app',
      keyword: 'kept',
      monkey: 'kept',
    });
    expect(kept).toEqual({
      pwd: '[redacted]',
      db_pwd: '[redacted]',
      auth: '[redacted]',
      bearer: '[redacted]',
      jwt: '[redacted]',
      session_id: '[redacted]',
      ssh_key: '[redacted]',
      accessKey: '[redacted]',
      encryption_key: '[redacted]',
      otp: '[redacted]',
      creds: '[redacted]',
      headers: [['Authorization', '[redacted]']],
      dsn: 'postgres://[redacted]@db.example/app',
      keyword: 'kept',
      monkey: 'kept',
    });
  });

  it('digests and keeps arguments nested 10,000 deep without overflowing the stack', () => {
    let deep: unknown = { token: 'secret-value' };
    for (let i = 0; i < 10_000; i++) deep = { a: [deep] };
    const kept = auditedArguments(deep, 'full');
    expect(kept.argumentsDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalJson(kept.arguments)).toContain('"token":"[redacted]"');
    expect(canonicalJson(kept.arguments)).not.toContain('secret-value');
  });

  it('writes canonical JSON', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null, u: undefined })).toBe(
      '{"a":null,"b":[1,{"c":2,"d":1}]}',
    );
    expect(withoutSecrets('plain')).toBe('plain');
  });
});

describe('the outcome of an MCP operation', () => {
  const answer = (result: Record<string, unknown>) => ({ jsonrpc: '2.0' as const, id: 1, result });

  it('tells a round that asks for input from a result, a tool error and an error', () => {
    expect(mcpOutcome(answer({ content: [] }))).toBe('ok');
    expect(mcpOutcome(answer({ content: [], resultType: 'complete' }))).toBe('ok');
    expect(mcpOutcome(answer({ content: [], isError: true }))).toBe('tool_error');
    expect(mcpOutcome(answer({ resultType: 'input_required', inputRequests: {} }))).toBe(
      'input_required',
    );
    expect(mcpOutcome({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no' } })).toBe(
      'error',
    );
  });
});
