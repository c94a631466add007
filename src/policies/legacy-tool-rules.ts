/**
 * Tool allow/deny rules (before policies) as policies, without loss. Per tool and scope (global, or
 * one server): each deny rule becomes a `deny` policy at priority 100; a tool with allow rules gets
 * one `allow` policy matching any of them at 200, then a `deny` of the tool at 300, so that only
 * principals matching an allow rule may use it. First match then gives the rules' meaning: a
 * matching deny wins, and once a tool has allow rules in a scope only their principals may.
 * Used by the migration that replaced the rules and by configuration documents that still carry
 * a `toolRules` section; plain code, so that both convert alike.
 */

export interface LegacyToolRule {
  toolId: string;
  /** The tool's virtual name, for the policies' names and descriptions. */
  toolName: string;
  serverId: string | null;
  effect: 'allow' | 'deny';
  teamId: string | null;
  role: string | null;
}

export interface ConvertedPolicy {
  name: string;
  description: string;
  expression: string;
  effect: 'allow' | 'deny';
  priority: number;
  serverId: string | null;
}

/** What the descriptions name: teams and servers by name where known. */
export interface LegacyNames {
  team(id: string): string;
  server(id: string): string;
}

export const LEGACY_PRIORITIES = { deny: 100, allow: 200, othersDenied: 300 } as const;

/** Longest name stem; the longest name this builds stays well under the column's 200. */
const STEM_LENGTH = 150;

/**
 * The policies of the rules, in a stable order (by tool name, then global before servers). Names
 * are `rule-<tool>-deny-<n>`, `rule-<tool>-allow-<n>` and `rule-<tool>-others-denied-<n>`, made
 * unique against `taken` (which gains them).
 */
export function policiesOfToolRules(
  rules: readonly LegacyToolRule[],
  names: LegacyNames,
  taken: Set<string> = new Set(),
): ConvertedPolicy[] {
  const byTool = new Map<string, LegacyToolRule[]>();
  for (const rule of [...rules].sort(byToolThenScope))
    byTool.set(rule.toolId, [...(byTool.get(rule.toolId) ?? []), rule]);
  const policies: ConvertedPolicy[] = [];
  for (const [toolId, toolRules] of byTool) {
    const toolName = toolRules[0]!.toolName;
    const stem = stemOf(toolName, toolId);
    const isTool = `tool.id == ${literal(toolId)}`;
    const where = (serverId: string | null) =>
      serverId === null ? 'everywhere' : `on server '${names.server(serverId)}'`;
    let denies = 0;
    let scopes = 0;
    const scopeIds = [...new Set(toolRules.map((rule) => rule.serverId))];
    for (const serverId of scopeIds) {
      const inScope = toolRules.filter((rule) => rule.serverId === serverId);
      for (const rule of inScope.filter((rule) => rule.effect === 'deny')) {
        denies += 1;
        const match = matchOf(rule);
        policies.push({
          name: unique(`${stem}-deny-${denies}`, taken),
          description: `Converted from a tool rule: ${toolName} is denied ${where(serverId)} to ${who(rule, names)}.`,
          expression: match === null ? isTool : `${isTool} && ${match}`,
          effect: 'deny',
          priority: LEGACY_PRIORITIES.deny,
          serverId,
        });
      }
      const allows = inScope.filter((rule) => rule.effect === 'allow');
      if (allows.length === 0) continue;
      scopes += 1;
      const matches = allows.map(matchOf);
      const anyone = matches.some((match) => match === null);
      policies.push({
        name: unique(`${stem}-allow-${scopes}`, taken),
        description: `Converted from tool rules: ${toolName} is allowed ${where(serverId)} to ${allows.map((rule) => who(rule, names)).join('; ')}.`,
        expression: anyone
          ? isTool
          : `${isTool} && (${(matches as string[]).map(grouped).join(' || ')})`,
        effect: 'allow',
        priority: LEGACY_PRIORITIES.allow,
        serverId,
      });
      policies.push({
        name: unique(`${stem}-others-denied-${scopes}`, taken),
        description: `Converted from tool rules: ${toolName} is denied ${where(serverId)} to everyone its allow rules do not name.`,
        expression: isTool,
        effect: 'deny',
        priority: LEGACY_PRIORITIES.othersDenied,
        serverId,
      });
    }
  }
  return policies;
}

/** The rule's principal match; null when it matches everyone. */
function matchOf(rule: LegacyToolRule): string | null {
  const parts = [
    ...(rule.teamId === null ? [] : [`${literal(rule.teamId)} in principal.teamIds`]),
    ...(rule.role === null ? [] : [`principal.role == ${literal(rule.role)}`]),
  ];
  return parts.length === 0 ? null : parts.join(' && ');
}

function grouped(match: string): string {
  return match.includes(' && ') ? `(${match})` : match;
}

function who(rule: LegacyToolRule, names: LegacyNames): string {
  const parts = [
    ...(rule.teamId === null ? [] : [`team '${names.team(rule.teamId)}'`]),
    ...(rule.role === null ? [] : [`role ${rule.role}`]),
  ];
  return parts.length === 0 ? 'everyone' : parts.join(' with ');
}

/** A CEL string literal (ids, roles: no quotes or escapes to expect, but never trusted). */
function literal(value: string): string {
  return JSON.stringify(value);
}

function stemOf(toolName: string, toolId: string): string {
  const stem = `rule-${toolName}`;
  return stem.length <= STEM_LENGTH
    ? stem
    : `${stem.slice(0, STEM_LENGTH - 9)}-${toolId.slice(0, 8)}`;
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${name}-${n}`;
  taken.add(candidate);
  return candidate;
}

function byToolThenScope(a: LegacyToolRule, b: LegacyToolRule): number {
  return (
    compare(a.toolName, b.toolName) ||
    compare(a.toolId, b.toolId) ||
    compare(a.serverId ?? '', b.serverId ?? '')
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
