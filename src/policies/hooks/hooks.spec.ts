import { type Principal } from '../../auth/principal';
import { buildHooks } from './hook-registry';
import { redactKnownSecrets } from './secret-patterns';
import { HookConfigError, HookRefusal, type ToolCallContext } from './tool-call-hook';

const context = (args: Record<string, unknown>): ToolCallContext => ({
  serverId: 's',
  toolName: 'tool',
  toolId: 't',
  gatewaySlug: 'g',
  principal: { subject: 'u', role: 'member', teamIds: [] } as unknown as Principal,
  arguments: args,
});

describe('redactKnownSecrets', () => {
  it.each([
    ['AKIAIOSFODNN7EXAMPLE', 'aws-access-key-id'],
    [`ghp_${'x'.repeat(36)}`, 'github-token'],
    [`github_pat_${'A1'.repeat(20)}`, 'github-fine-grained-token'],
    [`sk-${'a'.repeat(48)}`, 'openai-key'],
    [`sk-ant-api03-${'b'.repeat(40)}`, 'anthropic-key'],
    [`xoxb-1234567890-${'c'.repeat(12)}`, 'slack-token'],
    [`AIza${'d'.repeat(35)}`, 'google-api-key'],
    [`sk_live_${'e'.repeat(24)}`, 'stripe-key'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', 'private-key'],
  ])('cuts %s', (secret, kind) => {
    const { text, found } = redactKnownSecrets(`before ${secret} after`);
    expect(text).toBe(`before [redacted:${kind}] after`);
    expect(found).toBe(1);
  });

  it('keeps the name of an AWS secret key and cuts its value', () => {
    const value = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    expect(redactKnownSecrets(`aws_secret_access_key = ${value}`).text).toBe(
      'aws_secret_access_key = [redacted:aws-secret-access-key]',
    );
  });

  it('leaves ordinary text alone', () => {
    const prose = 'The task-force asked sk- and ghp_ questions about AKIA in 2024.';
    expect(redactKnownSecrets(prose)).toEqual({ text: prose, found: 0 });
  });
});

describe('built-in hooks', () => {
  it('redact text, embedded resources and structured content, and pass images', async () => {
    const [hook] = buildHooks([{ name: 'secret-redaction' }]);
    const result = await hook!.after!(context({}), {
      content: [
        { type: 'text', text: 'key AKIAIOSFODNN7EXAMPLE' },
        { type: 'image', data: 'AKIAIOSFODNN7EXAMPLE', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///k', text: 'AKIAIOSFODNN7EXAMPLE' } },
      ],
      structuredContent: { nested: [{ key: 'AKIAIOSFODNN7EXAMPLE' }], count: 1 },
    });
    expect(result.content).toEqual([
      { type: 'text', text: 'key [redacted:aws-access-key-id]' },
      { type: 'image', data: 'AKIAIOSFODNN7EXAMPLE', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///k', text: '[redacted:aws-access-key-id]' } },
    ]);
    expect(result.structuredContent).toEqual({
      nested: [{ key: '[redacted:aws-access-key-id]' }],
      count: 1,
    });
  });

  it("redact the result's other members: _meta, and a task's status message and error", async () => {
    const [hook] = buildHooks([{ name: 'secret-redaction' }]);
    const result = await hook!.after!(context({}), {
      resultType: 'task',
      taskId: 't-1',
      status: 'failed',
      statusMessage: 'retrying with AKIAIOSFODNN7EXAMPLE',
      error: { code: -32603, message: 'denied for AKIAIOSFODNN7EXAMPLE' },
      _meta: { trace: ['AKIAIOSFODNN7EXAMPLE'] },
    } as never);
    expect(result).toEqual({
      resultType: 'task',
      taskId: 't-1',
      status: 'failed',
      statusMessage: 'retrying with [redacted:aws-access-key-id]',
      error: { code: -32603, message: 'denied for [redacted:aws-access-key-id]' },
      _meta: { trace: ['[redacted:aws-access-key-id]'] },
    });
  });

  it('redact structured content nested far deeper than the call stack allows', async () => {
    const [hook] = buildHooks([{ name: 'secret-redaction' }]);
    let deep: Record<string, unknown> = { key: 'AKIAIOSFODNN7EXAMPLE' };
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const result = await hook!.after!(context({}), { content: [], structuredContent: deep });
    let inner = result.structuredContent as Record<string, unknown>;
    for (let i = 0; i < 20_000; i++) inner = inner.a as Record<string, unknown>;
    expect(inner).toEqual({ key: '[redacted:aws-access-key-id]' });
  });

  it('redact a result without content, leaving it without', async () => {
    const [hook] = buildHooks([{ name: 'secret-redaction' }]);
    const result = await hook!.after!(context({}), {
      structuredContent: { key: 'AKIAIOSFODNN7EXAMPLE' },
    } as never);
    expect(result).toEqual({ structuredContent: { key: '[redacted:aws-access-key-id]' } });
  });

  it('refuse arguments and results over their size', async () => {
    const [hook] = buildHooks([
      { name: 'size-limit', config: { maxArgumentBytes: 20, maxResultBytes: 60 } },
    ]);
    expect(() => hook!.before!(context({ a: 'short' }))).not.toThrow();
    expect(() => hook!.before!(context({ a: 'x'.repeat(30) }))).toThrow(HookRefusal);
    const small = { content: [{ type: 'text' as const, text: 'ok' }] };
    await expect(Promise.resolve(hook!.after!(context({}), small))).resolves.toBe(small);
    expect(() =>
      hook!.after!(context({}), { content: [{ type: 'text', text: 'y'.repeat(100) }] }),
    ).toThrow(HookRefusal);
  });

  it('refuse unknown hooks and bad settings', () => {
    expect(() => buildHooks([{ name: 'nope' }])).toThrow(HookConfigError);
    expect(() => buildHooks([{ name: 'size-limit' }])).toThrow(/needs maxArgumentBytes/);
    expect(() => buildHooks([{ name: 'size-limit', config: { maxResultBytes: 0 } }])).toThrow(
      HookConfigError,
    );
    expect(() => buildHooks([{ name: 'size-limit', config: { other: 1 } }])).toThrow(
      /no setting other/,
    );
    // 240,000 unknown keys made a 2 MB error: five are named.
    const many = Object.fromEntries(Array.from({ length: 240_000 }, (_, i) => [`k${i}`, 1]));
    expect(() => buildHooks([{ name: 'size-limit', config: many }])).toThrow(
      "Hook 'size-limit' has no setting k0, k1, k2, k3, k4 (and 239995 more).",
    );
    expect(() => buildHooks([{ name: 'secret-redaction', config: { x: 1 } }])).toThrow(
      HookConfigError,
    );
  });
});
