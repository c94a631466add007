import { loadConfig } from '../config/load-config';
import { type OidcConfig } from '../config/slices/auth.settings';
import { groupsOf, mapClaims } from './claims-mapping';

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
});
