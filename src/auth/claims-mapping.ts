import { type OidcConfig } from '../config/slices/auth.settings';
import { highestRole, type Role } from '../common/roles';

/** What Portico makes of an identity provider's claims about a person. */
export interface MappedIdentity {
  username: string;
  displayName: string;
  /** null: none of the person's groups maps to a role, and there is no default. */
  role: Role | null;
  teamNames: string[];
}

/** The groups claim as a list: an array of strings, or one space- or comma-separated string. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const raw = claims[claim];
  if (Array.isArray(raw)) return raw.filter((group): group is string => typeof group === 'string');
  if (typeof raw === 'string') return raw.split(/[\s,]+/).filter((group) => group !== '');
  return [];
}

/**
 * Maps groups to a role (the highest of them, or the default) and to teams, as configured. A
 * group may be given with or without a leading slash (Keycloak sends full paths when asked to).
 */
export function mapClaims(claims: Record<string, unknown>, config: OidcConfig): MappedIdentity {
  const groups = groupsOf(claims, config.groupsClaim).flatMap((group) =>
    group.startsWith('/') ? [group, group.slice(1)] : [group],
  );
  const roles = groups.flatMap((group) => {
    const role = config.roleMap.get(group);
    return role ? [role] : [];
  });
  const teamNames = [...new Set(groups.flatMap((group) => config.teamMap.get(group) ?? []))];
  const sub = typeof claims.sub === 'string' ? claims.sub : '';
  const username = claims[config.usernameClaim];
  const name = claims.name;
  return {
    username: typeof username === 'string' && username !== '' ? username : sub,
    displayName: typeof name === 'string' ? name.slice(0, 200) : '',
    role: highestRole(roles) ?? config.defaultRole,
    teamNames,
  };
}
