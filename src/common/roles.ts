/** Ascending: each role may do what the ones before it may. */
export const ROLES = ['member', 'operator', 'admin'] as const;

/**
 * - `admin`: everything;
 * - `operator`: manages the gateways and servers of their teams;
 * - `member`: uses the MCP endpoints of their teams' servers.
 */
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** The lower of two roles: what a token may do is capped by what its owner may. */
export function lowerRole(a: Role, b: Role): Role {
  return roleAtLeast(a, b) ? b : a;
}

/** The highest of some roles, or null for none. */
export function highestRole(roles: Iterable<Role>): Role | null {
  let highest: Role | null = null;
  for (const role of roles) if (highest === null || roleAtLeast(role, highest)) highest = role;
  return highest;
}
