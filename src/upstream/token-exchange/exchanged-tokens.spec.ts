import { type TokenExchangeSettings } from '../upstream-credentials';
import { ExchangedTokens } from './exchanged-tokens';
import { type TokenRequest } from './token-service-request';

const settings: TokenExchangeSettings = {
  type: 'token-exchange',
  tokenUrl: 'https://sts.example.com/token',
  dialect: 'rfc8693',
  clientId: 'portico',
  clientAuth: 'client_secret_basic',
  actor: false,
};

describe('ExchangedTokens', () => {
  let now: number;
  let issued: TokenRequest[];
  let tokens: ExchangedTokens;
  let lifetimeSeconds: number | null;

  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    issued = [];
    lifetimeSeconds = 300;
    tokens = new ExchangedTokens(async (_settings, request) => {
      issued.push(request);
      await new Promise((resolve) => setImmediate(resolve));
      return {
        accessToken: `t${issued.length}`,
        expiresAt: lifetimeSeconds === null ? null : Date.now() + lifetimeSeconds * 1000,
      };
    });
  });

  afterEach(() => jest.restoreAllMocks());

  const alice = { subject: 'user:alice', token: 'alice-token' };

  it('holds a token per caller and gateway until shortly before it expires', async () => {
    expect(await tokens.get('g1', settings, alice)).toBe('t1');
    expect(await tokens.get('g1', settings, alice)).toBe('t1');
    expect(await tokens.get('g2', settings, alice)).toBe('t2');
    expect(await tokens.get('g1', settings, { subject: 'user:bob', token: 'b' })).toBe('t3');
    now += 269_000;
    expect(await tokens.get('g1', settings, alice)).toBe('t1');
    now += 2_000;
    expect(await tokens.get('g1', settings, alice)).toBe('t4');
  });

  it('shares one exchange among concurrent first calls', async () => {
    const all = await Promise.all([1, 2, 3].map(() => tokens.get('g1', settings, alice)));
    expect(all).toEqual(['t1', 't1', 't1']);
    expect(issued).toHaveLength(1);
  });

  it('never hands out again a token the upstream refused', async () => {
    expect(await tokens.get('g1', settings, alice)).toBe('t1');
    expect(await tokens.get('g1', settings, alice, 't1')).toBe('t2');
  });

  it('asks for Portico’s own token first when it states itself as the actor', async () => {
    expect(await tokens.get('g1', { ...settings, actor: true }, alice)).toBe('t2');
    expect(issued).toEqual([
      { kind: 'own' },
      { kind: 'exchange', subjectToken: 'alice-token', actorToken: 't1' },
    ]);
  });

  it('uses a token of unknown lifetime for a minute at most, and forgets a changed gateway’s', async () => {
    lifetimeSeconds = null;
    expect(await tokens.get('g1', settings, alice)).toBe('t1');
    now += 46_000;
    expect(await tokens.get('g1', settings, alice)).toBe('t2');
    expect(await tokens.get('g1', { ...settings, scope: 'more' }, alice)).toBe('t3');
  });
});
