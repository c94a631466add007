import { loadConfig } from '../config/load-config';
import { type OidcConfig } from '../config/slices/auth.settings';
import { groupsOf, mapClaims, SUBJECT_LIMIT, subjectOf } from './claims-mapping';

function oidc(env: Record<string, string> = {}): OidcConfig {
  return loadConfig({
    DATA_DIR: '/nonexistent-portico-test',
    JWT_SECRET: 'x'.repeat(32),
    ENCRYPTION_KEY: '0'.repeat(64),
    OIDC_ISSUER: 'https://idp.example.com/realms/portico',
    OIDC_ROLE_MAP: 'portico-admins=admin, portico-operators=operator, staff=member',
    OIDC_TEAM_MAP: 'platform=Platform, platform=Ops, data=Data',
    ...env,
  }).oidc!;
}

describe('mapClaims', () => {
  it('takes the highest role of the groups, and every mapped team once', () => {
    expect(
      mapClaims(
        {
          sub: 's1',
          preferred_username: 'ada',
          name: 'Ada',
          groups: ['staff', '/portico-operators', 'platform', 'other'],
        },
        oidc(),
      ),
    ).toEqual({
      username: 'ada',
      displayName: 'Ada',
      role: 'operator',
      teamNames: ['Platform', 'Ops'],
    });
  });

  it('refuses a person in no mapped group, unless a default role is configured', () => {
    expect(mapClaims({ sub: 's2', groups: ['other'] }, oidc()).role).toBeNull();
    expect(mapClaims({ sub: 's2' }, oidc({ OIDC_DEFAULT_ROLE: 'member' })).role).toBe('member');
  });

  it('falls back to the subject for a missing username claim', () => {
    expect(mapClaims({ sub: 's3', groups: 'data staff' }, oidc())).toMatchObject({
      username: 's3',
      role: 'member',
      teamNames: ['Data'],
    });
  });

  it('reads a groups claim of another name and shape', () => {
    expect(groupsOf({ roles: 'a,b c' }, 'roles')).toEqual(['a', 'b', 'c']);
    expect(groupsOf({ roles: [1, 'x'] }, 'roles')).toEqual(['x']);
    expect(groupsOf({}, 'roles')).toEqual([]);
  });

  it('refuses a role map naming an unknown role', () => {
    expect(() => oidc({ OIDC_ROLE_MAP: 'x=root' })).toThrow(/OIDC_ROLE_MAP/);
  });

  it('keeps what a person wrote at the provider as PostgreSQL can store it', () => {
    const mapped = mapClaims(
      {
        sub: 's1',
        preferred_username: 'a\u0000da',
        name: `Ada ${'\u{1F600}'.slice(0, 1)}`,
        groups: ['staff'],
      },
      oidc(),
    );
    expect(mapped).toMatchObject({ username: 'ada', displayName: 'Ada \uFFFD' });
    // The display name is cut at 200 characters, never inside a pair.
    const long = mapClaims(
      { sub: 's1', name: `${'x'.repeat(199)}\u{1F600}`, groups: ['staff'] },
      oidc(),
    );
    expect(long.displayName).toBe('x'.repeat(199));
  });
});

describe('subjectOf', () => {
  it('is the subject a person can be looked up by, within the limit given', () => {
    expect(subjectOf({ sub: 'x'.repeat(255) }, SUBJECT_LIMIT)).toBe('x'.repeat(255));
    expect(subjectOf({ sub: 'x'.repeat(256) }, SUBJECT_LIMIT)).toBeNull();
    expect(subjectOf({ sub: `https://client.example/${'x'.repeat(300)}` })).toMatch(/^https/);
  });

  it.each([
    ['none', {}],
    ['an empty one', { sub: '' }],
    ['a number', { sub: 42 }],
    ['one with a NUL', { sub: 'a\u0000b' }],
    ['one with an unpaired surrogate', { sub: 'a\uD800' }],
  ])('is null for %s', (_what, claims) => {
    expect(subjectOf(claims)).toBeNull();
  });
});
