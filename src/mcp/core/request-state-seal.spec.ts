import {
  MAX_INNER_STATE_BYTES,
  type RequestStateBinding,
  RequestStateSealer,
  RequestStateTooLarge,
} from './request-state-seal';

const SECRET = 'j'.repeat(40);

const args = { tenant: 'acme', query: { text: 'Globex', limit: 3 } };

const binding: RequestStateBinding = {
  subject: 'user:1',
  scope: 'server:s1',
  gatewayId: 'g1',
  method: 'tools/call',
  target: 'find_account',
  arguments: args,
};

function sealer(now = () => 1_000_000_000_000, secret = SECRET): RequestStateSealer {
  return new RequestStateSealer(secret, { ttlSeconds: 600, now });
}

/** Replaces one character of the sealed state's part `index` (0 format, 1 body, 2 MAC). */
function altered(state: string, index: number): string {
  const parts = state.split('.');
  const part = parts[index]!;
  const at = Math.floor(part.length / 2);
  parts[index] = part.slice(0, at) + (part[at] === 'A' ? 'B' : 'A') + part.slice(at + 1);
  return parts.join('.');
}

describe('RequestStateSealer', () => {
  it('gives back the upstream state byte-identical on a retry with the same bindings', () => {
    const inner = 'g1.eyJ1cCI6ImNybSJ9.sig \u{1F600} "quoted" \\ \ud800 \u0000';
    const state = sealer().seal(binding, { kind: 'upstream', requestState: inner });
    const result = sealer().unseal(state, { ...binding, arguments: { ...args } });
    expect(result).toMatchObject({ ok: true, content: { kind: 'upstream', requestState: inner } });
    if (!result.ok) throw new Error('refused');
    expect(result.content.kind === 'upstream' && Buffer.from(result.content.requestState!)).toEqual(
      Buffer.from(inner),
    );
  });

  it("carries Portico's own round and the approval given in a call, under the same bindings", () => {
    const content = { kind: 'approval' as const, policy: 'p-9', name: 'ask', version: 'v-2' };
    const state = sealer().seal(binding, content);
    expect(sealer().unseal(state, binding)).toMatchObject({ ok: true, content });
    const carried = {
      kind: 'upstream' as const,
      requestState: 'inner',
      approved: { policy: 'p-9', version: 'v-2', at: '2026-11-28T12:00:00.000Z' },
    };
    expect(sealer().unseal(sealer().seal(binding, carried), binding)).toMatchObject({
      ok: true,
      content: carried,
    });
  });

  it('names nothing else', () => {
    const content = { kind: 'parked' as const, replica: 'r-2', parkedId: 'p-9' };
    const state = sealer().seal(binding, content as never);
    expect(sealer().unseal(state, binding)).toMatchObject({ ok: false, refusal: 'malformed' });
  });

  it('issues a new id for every round, so that two states are never alike', () => {
    const content = { kind: 'upstream' as const, requestState: 'x' };
    const a = sealer().seal(binding, content);
    const b = sealer().seal(binding, content);
    expect(a).not.toBe(b);
  });

  it('binds the arguments by content, not by the order of their keys', () => {
    const state = sealer().seal(binding, { kind: 'upstream', requestState: 'x' });
    const reordered = { query: { limit: 3, text: 'Globex' }, tenant: 'acme' };
    expect(sealer().unseal(state, { ...binding, arguments: reordered }).ok).toBe(true);
  });

  it('takes missing arguments and empty ones for the same request', () => {
    const { arguments: _, ...none } = binding;
    const state = sealer().seal(none, { kind: 'upstream', requestState: 'x' });
    expect(sealer().unseal(state, { ...none, arguments: {} }).ok).toBe(true);
  });

  it.each([
    ['principal', { subject: 'user:2' }],
    ['scope', { scope: 'all' }],
    ['gateway', { gatewayId: 'g2' }],
    ['target', { target: 'delete_account' }],
    ['target', { method: 'prompts/get' as const }],
    ['arguments', { arguments: { ...args, tenant: 'globex' } }],
    ['arguments', { arguments: undefined }],
  ])('refuses a retry whose %s differs', (refusal, change) => {
    const state = sealer().seal(binding, { kind: 'upstream', requestState: 'x' });
    expect(sealer().unseal(state, { ...binding, ...change })).toMatchObject({
      ok: false,
      refusal,
    });
  });

  it('refuses a state once it has expired, and not a second before', () => {
    let now = 1_000_000_000_000;
    const clock = sealer(() => now);
    const state = clock.seal(binding, { kind: 'upstream', requestState: 'x' });
    now += 599_000;
    expect(clock.unseal(state, binding).ok).toBe(true);
    now += 1_000;
    expect(clock.unseal(state, binding)).toMatchObject({ ok: false, refusal: 'expired' });
  });

  it.each([
    [0, 'malformed'],
    [1, 'signature'],
    [2, 'signature'],
  ])('refuses a state whose part %d was altered', (index, refusal) => {
    const state = sealer().seal(binding, { kind: 'upstream', requestState: 'inner-state' });
    expect(sealer().unseal(altered(state, index), binding)).toMatchObject({ ok: false, refusal });
  });

  it('refuses a payload rewritten by someone without the key, even with a fresh MAC of their own', () => {
    const state = sealer().seal(binding, { kind: 'upstream', requestState: 'x' });
    const [format, body] = state.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString());
    payload.sub = 'user:2';
    const forged = `${format}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    const foreign = sealer(undefined, 'k'.repeat(40)).seal(binding, {
      kind: 'upstream',
      requestState: 'x',
    });
    expect(
      sealer().unseal(`${forged}.${foreign.split('.')[2]}`, { ...binding, subject: 'user:2' }),
    ).toMatchObject({ ok: false, refusal: 'signature' });
  });

  it('refuses a state issued with another JWT_SECRET', () => {
    const state = sealer(undefined, 'k'.repeat(40)).seal(binding, {
      kind: 'upstream',
      requestState: 'x',
    });
    expect(sealer().unseal(state, binding)).toMatchObject({ ok: false, refusal: 'signature' });
  });

  it.each([
    ['not a string', 42],
    ['empty', ''],
    ['the upstream state itself', 'v1.eyJ9.sig'],
    ['with an extra part', 'ps1.a.b.c'],
  ])('refuses a state that is %s', (_, state) => {
    expect(sealer().unseal(state, binding)).toMatchObject({ ok: false, refusal: 'malformed' });
  });

  it('wraps an upstream state up to the limit, and refuses a larger one', () => {
    const largest = 'a'.repeat(MAX_INNER_STATE_BYTES);
    const state = sealer().seal(binding, { kind: 'upstream', requestState: largest });
    expect(sealer().unseal(state, binding).ok).toBe(true);
    expect(() => sealer().seal(binding, { kind: 'upstream', requestState: `${largest}a` })).toThrow(
      RequestStateTooLarge,
    );
  });

  it('refuses an oversized state before checking anything else', () => {
    const huge = `ps1.${'a'.repeat(1_000_000)}.mac`;
    expect(sealer().unseal(huge, binding)).toMatchObject({ ok: false, refusal: 'oversize' });
  });

  it('refuses arguments nested too deep to digest instead of throwing', () => {
    const state = sealer().seal(binding, { kind: 'upstream', requestState: 'x' });
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(sealer().unseal(state, { ...binding, arguments: deep })).toMatchObject({
      ok: false,
      refusal: 'arguments',
    });
  });
});
