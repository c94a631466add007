import { type OidcConfig } from '../config/slices/auth.settings';
import { highestRole, type Role } from '../common/roles';
import { isStorableText, repairedText } from '../common/untrusted-text';

/** OpenID Connect's bound on a subject: at most 255 ASCII characters (Core 1.0, section 2). */
export const SUBJECT_LIMIT = 255;

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
  // What the person may have written at the provider is stored as PostgreSQL can store it.
  return {
    username: repairedText(typeof username === 'string' && username !== '' ? username : sub),
    displayName: typeof name === 'string' ? repairedText(cut(name, 200)) : '',
    role: highestRole(roles) ?? config.defaultRole,
    teamNames,
  };
}

/**
 * The claims' subject when Portico can look a person up by it: a string of 1 to `limit`
 * characters with no NUL and no unpaired surrogate. Null otherwise, and the identity is refused
 * (a repaired or cut subject could name another person). A sign-in, which keeps it, passes
 * SUBJECT_LIMIT; a bearer token's subject (a machine client's id may be a long URL) is only
 * looked up, never kept, and has no limit.
 */
export function subjectOf(claims: Record<string, unknown>, limit = Infinity): string | null {
  const { sub } = claims;
  return typeof sub === 'string' && sub !== '' && sub.length <= limit && isStorableText(sub)
    ? sub
    : null;
}

/** The first `limit` characters of a text, one fewer where the cut would split a pair. */
function cut(text: string, limit: number): string {
  const head = text.slice(0, limit);
  return /[\uD800-\uDBFF]$/.test(head) && text.length > limit ? head.slice(0, -1) : head;
}
