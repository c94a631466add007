import { type Principal } from '../../src/auth/principal';

/** A tool rule as it was before policies. */
export interface LegacyRule {
  toolId: string;
  effect: 'allow' | 'deny';
  teamId: string | null;
  role: string | null;
}

type Who = Pick<Principal, 'role' | 'teamIds'>;

/**
 * How tool rules combined before policies replaced them, kept to prove the migration keeps their
 * meaning: no rules, everyone may; a matching deny refuses; once a tool has allow rules, only
 * principals matching one may.
 */
export function legacyAllows(rules: readonly LegacyRule[], who: Who, toolId: string): boolean {
  const matches = (rule: LegacyRule) =>
    (rule.teamId === null || who.teamIds.includes(rule.teamId)) &&
    (rule.role === null || rule.role === who.role);
  const own = rules.filter((rule) => rule.toolId === toolId);
  if (own.some((rule) => rule.effect === 'deny' && matches(rule))) return false;
  const allows = own.filter((rule) => rule.effect === 'allow');
  return allows.length === 0 || allows.some(matches);
}
