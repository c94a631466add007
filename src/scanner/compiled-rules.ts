import {
  type ContextCheck,
  type ContextRule,
  type PatternRule,
  type PatternTarget,
  type ScannerRule,
} from './rules';

/** A pattern rule with its expressions compiled (global, so that matches can be walked). */
export interface CompiledRule {
  rule: PatternRule;
  patterns: RegExp[];
  except: RegExp[];
}

/**
 * The rules of one target that share flags, behind one expression that matches wherever any of
 * them might: most texts match none, and cost that one test.
 */
export interface RuleGroup {
  screen: RegExp;
  rules: CompiledRule[];
}

export interface CompiledRules {
  byTarget: Record<PatternTarget, RuleGroup[]>;
  byCheck: Record<ContextCheck, ContextRule>;
}

const NAMED_GROUP = /\(\?<([A-Za-z_]\w*)>/g;

/** Compiles a rule set; throws, naming the rule, on a pattern that does not compile. */
export function compileRules(rules: readonly ScannerRule[]): CompiledRules {
  const byTarget: Record<PatternTarget, RuleGroup[]> = {
    raw: [],
    prose: [],
    'parameter-name': [],
    'parameter-description': [],
  };
  const byCheck: Partial<Record<ContextCheck, ContextRule>> = {};
  const ids = new Set<string>();
  const grouped = new Map<string, CompiledRule[]>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw new Error(`scanner rule ${rule.id} is defined twice`);
    ids.add(rule.id);
    if ('check' in rule) {
      byCheck[rule.check] = rule;
      continue;
    }
    const compile = (source: string) => {
      try {
        return new RegExp(source, `${rule.flags}g`);
      } catch (error) {
        throw new Error(`scanner rule ${rule.id}: ${(error as Error).message}`);
      }
    };
    if (rule.patterns.length === 0) throw new Error(`scanner rule ${rule.id} has no pattern`);
    const key = `${rule.target} ${rule.flags}`;
    let group = grouped.get(key);
    if (group === undefined) grouped.set(key, (group = []));
    group.push({
      rule,
      patterns: rule.patterns.map(compile),
      except: (rule.except ?? []).map(compile),
    });
  }
  for (const group of grouped.values()) {
    const { target, flags } = group[0]!.rule;
    // Capture names may repeat across rules; the screen needs none of them.
    const union = group
      .flatMap(({ rule }) => rule.patterns)
      .map((source) => `(?:${source.replace(NAMED_GROUP, '(?:')})`)
      .join('|');
    byTarget[target].push({ screen: new RegExp(union, flags), rules: group });
  }
  const missing = (
    [
      'other-tool-reference',
      'lookalike-characters',
      'impersonated-tool',
      'lookalike-slug',
      'embedded-slug',
      'transposed-name',
      'truncated-scan',
    ] as const
  ).filter((check) => byCheck[check] === undefined);
  if (missing.length > 0) throw new Error(`no scanner rule for ${missing.join(', ')}`);
  return { byTarget, byCheck: byCheck as Record<ContextCheck, ContextRule> };
}
