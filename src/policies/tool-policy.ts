import { type Principal } from '../auth/principal';
import { type Role } from '../auth/roles';
import { type RuleEffect } from './tool-rule.entity';

/** One allow or deny rule, as the policy reads it. */
export interface PolicyRule {
  toolId: string;
  effect: RuleEffect;
  /** Matches members of this team; null: anyone. */
  teamId: string | null;
  /** Matches principals with exactly this role; null: any role. */
  role: Role | null;
}

type Who = Pick<Principal, 'role' | 'teamIds'>;

function matches(rule: PolicyRule, who: Who): boolean {
  return (
    (rule.teamId === null || who.teamIds.includes(rule.teamId)) &&
    (rule.role === null || rule.role === who.role)
  );
}

/**
 * Who may see and call which tool in one scope. For each tool:
 * - no rules: everyone may;
 * - a matching deny rule refuses, whatever else matches;
 * - once a tool has any allow rule, only principals matching one of them may.
 * Immutable; built with the scope's directory and replaced with it.
 */
export class ToolPolicy {
  static readonly OPEN = new ToolPolicy([]);

  private readonly byTool = new Map<string, PolicyRule[]>();
  /** The teams some rule names: the only teams that can make two principals differ. */
  private readonly teams: ReadonlySet<string>;

  constructor(rules: readonly PolicyRule[]) {
    for (const rule of rules)
      this.byTool.set(rule.toolId, [...(this.byTool.get(rule.toolId) ?? []), rule]);
    this.teams = new Set(rules.flatMap((rule) => (rule.teamId === null ? [] : [rule.teamId])));
  }

  get empty(): boolean {
    return this.byTool.size === 0;
  }

  allows(who: Who, toolId: string): boolean {
    const rules = this.byTool.get(toolId);
    if (!rules) return true;
    let allowRules = false;
    let allowed = false;
    for (const rule of rules) {
      if (rule.effect === 'deny') {
        if (matches(rule, who)) return false;
      } else {
        allowRules = true;
        allowed ||= matches(rule, who);
      }
    }
    return !allowRules || allowed;
  }

  /**
   * Principals with one key see the same tools: the role and the teams the rules name. What is
   * built per principal is memoised under it.
   */
  keyOf(who: Who): string {
    const teams = who.teamIds.filter((team) => this.teams.has(team)).sort();
    return `${who.role}:${teams.join(',')}`;
  }
}
