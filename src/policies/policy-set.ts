import { createHash } from 'node:crypto';
import { type Principal } from '../auth/principal';
import { type CelExpression, compileExpression, type PrincipalField } from './cel-expression';
import { type PolicyApproval, type PolicyEffect } from './policy.entity';
import { type PolicyTool } from './policy-tool';

/** A policy as a scope judges with it: enabled, and holding in that scope. */
export interface PolicyDefinition {
  id: string;
  name: string;
  expression: string;
  effect: PolicyEffect;
  priority: number;
  approval: PolicyApproval | null;
}

/** What decides a call: the effect, the policy that decided it (null: none matched). */
export interface PolicyDecision {
  effect: PolicyEffect;
  policy: { id: string; name: string } | null;
  approval: PolicyApproval | null;
}

/** How a principal's view lists a tool, and what a call decides when no argument can change it. */
export interface ListOutcome {
  /** Hidden only when every call would be denied. */
  listed: boolean;
  /** Determinate: the decision of every call. Null: the call decides, from policy `from` on. */
  decision: PolicyDecision | null;
  from: number;
  /** The first policy that needs the call's arguments or time, when there is one. */
  dependsOn: { id: string; name: string } | null;
}

/** Called when a policy's expression fails on a tool: it then does not match. */
export type PolicyErrorListener = (policy: PolicyDefinition, tool: string, error: unknown) => void;

/** The most values a call's arguments may hold for a policy to judge them. */
export const ARGUMENT_VALUES_LIMIT = 10_000;

/** A policy whose expression does not compile. */
export class PolicyCompileFailure extends Error {
  constructor(
    readonly policy: PolicyDefinition,
    error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** Arguments too large for a policy to judge in bounded time: the call is refused. */
export class PolicyInputTooLarge extends Error {}

/** Principal keys whose outcomes (and views, CallGuard) are kept; past it the memory starts over. */
export const VIEW_MEMORY = 1_000;

const ALLOW: PolicyDecision = { effect: 'allow', policy: null, approval: null };

interface Compiled extends PolicyDefinition {
  cel: CelExpression;
  needsCall: boolean;
  decision: PolicyDecision;
}

/** Principal fields, by how a key reads them. */
const KEYED: readonly [PrincipalField, (principal: Principal) => string][] = [
  ['subject', (principal) => principal.subject],
  ['name', (principal) => principal.name],
  ['user', (principal) => principal.userId ?? ''],
  ['role', (principal) => principal.role],
  ['token', (principal) => principal.tokenId ?? ''],
  ['source', (principal) => principal.source],
];

/**
 * The compiled policies of one scope, ordered by priority, then name: the first whose expression
 * is true decides (allow, deny, approve); none: allowed. Immutable; built with the scope's
 * directory and replaced with it, so a call costs no database round trip.
 *
 * A tool's listing is judged without the call's arguments and time. A policy that needs them is
 * call-dependent: a tool is hidden only when every call would be denied. Outcomes are memoised per
 * principal key (the principal fields the policies read), and a call whose listing was
 * determinate reuses it; only a call-dependent one evaluates, from its first dependent policy on.
 */
export class PolicySet {
  static readonly OPEN = new PolicySet([], new Map(), () => undefined);

  /** Changes whenever what any principal may see or call changes. */
  readonly stamp: string;
  private readonly fields: ReadonlySet<PrincipalField>;
  /** The teams (by id) that can make two principals differ; null: all of them. */
  private readonly keyTeams: ReadonlySet<string> | null;
  private readonly views = new Map<string, Map<string, ListOutcome>>();
  private versionDigest?: string;

  private constructor(
    private readonly policies: readonly Compiled[],
    /** Team names by id, read when the scope was built. */
    private readonly teamNames: ReadonlyMap<string, string>,
    private readonly onError: PolicyErrorListener,
  ) {
    const fields = new Set<PrincipalField>();
    let everyTeam = false;
    const teams = new Set<string>();
    const idsByName = new Map([...teamNames].map(([id, name]) => [name, id]));
    for (const policy of policies) {
      for (const field of policy.cel.uses.principal) fields.add(field);
      const named = policy.cel.uses.teams;
      if (named === null) everyTeam = true;
      else {
        for (const id of named.ids) teams.add(id);
        for (const name of named.names) {
          const id = idsByName.get(name);
          if (id !== undefined) teams.add(id);
        }
      }
    }
    this.fields = fields;
    this.keyTeams = everyTeam ? null : teams;
    const readsTeams = fields.has('teams');
    this.stamp =
      policies.length === 0
        ? ''
        : JSON.stringify([
            policies.map(({ id, name, expression, effect, priority, approval }) => [
              id,
              name,
              expression,
              effect,
              priority,
              approval,
            ]),
            readsTeams ? [...teamNames].sort() : [],
          ]);
  }

  /** Compiles the scope's policies (enabled, of the scope); throws for one that does not compile. */
  static async compile(
    definitions: readonly PolicyDefinition[],
    teamNames: ReadonlyMap<string, string>,
    onError: PolicyErrorListener = () => undefined,
  ): Promise<PolicySet> {
    if (definitions.length === 0) return PolicySet.OPEN;
    const compiled: Compiled[] = [];
    for (const definition of [...definitions].sort(byOrder)) {
      const cel = await compileExpression(definition.expression).catch((error: unknown) => {
        throw new PolicyCompileFailure(definition, error);
      });
      compiled.push({
        ...definition,
        cel,
        needsCall: cel.uses.args || cel.uses.now,
        decision: {
          effect: definition.effect,
          policy: { id: definition.id, name: definition.name },
          approval: definition.effect === 'approve' ? (definition.approval ?? NO_APPROVAL) : null,
        },
      });
    }
    return new PolicySet(compiled, teamNames, onError);
  }

  /** A set that denies every tool in the name of a policy that cannot run. */
  static closedBy(policy: PolicyDefinition): Promise<PolicySet> {
    return PolicySet.compile(
      [{ ...policy, expression: 'true', effect: 'deny', priority: 0, approval: null }],
      new Map(),
    );
  }

  get empty(): boolean {
    return this.policies.length === 0;
  }

  /** A short digest of the stamp: what an approval given under this set is bound to. */
  get version(): string {
    this.versionDigest ??= createHash('sha256').update(this.stamp).digest('base64url').slice(0, 22);
    return this.versionDigest;
  }

  /** The policies in the order they are tried. */
  get order(): readonly PolicyDefinition[] {
    return this.policies;
  }

  /**
   * Principals with one key see and may call the same: the principal fields some policy reads,
   * and of the teams, those a policy names (all, when one reads the teams otherwise).
   */
  keyOf(principal: Principal): string {
    if (this.fields.size === 0) return '';
    const parts: string[] = [];
    for (const [field, read] of KEYED) if (this.fields.has(field)) parts.push(read(principal));
    if (this.fields.has('teams') || this.fields.has('teamIds')) {
      const teams = this.keyTeams;
      parts.push(
        (teams === null ? [...principal.teamIds] : principal.teamIds.filter((id) => teams.has(id)))
          .sort()
          .join(','),
      );
    }
    return parts.join('\u0000');
  }

  /** Whether the tool is listed for the principal: hidden only when every call is denied. */
  listed(principal: Principal, tool: PolicyTool, key = this.keyOf(principal)): boolean {
    return this.empty || this.outcome(principal, tool, key).listed;
  }

  /** The listing outcome: memoised for the principal's key. */
  outcome(principal: Principal, tool: PolicyTool, key = this.keyOf(principal)): ListOutcome {
    if (this.empty) return OPEN_OUTCOME;
    let view = this.views.get(key);
    if (!view) {
      if (this.views.size >= VIEW_MEMORY) this.views.clear();
      view = new Map();
      this.views.set(key, view);
    }
    let outcome = view.get(tool.id);
    if (!outcome) {
      outcome = this.judgeListing(principal, tool);
      view.set(tool.id, outcome);
    }
    return outcome;
  }

  /**
   * What a call decides. Determinate listings are a map lookup; otherwise the call-dependent
   * policies evaluate with the arguments and the time. Throws PolicyInputTooLarge for arguments
   * with more values than a policy may walk.
   */
  decide(
    principal: Principal,
    tool: PolicyTool,
    args: Record<string, unknown>,
    now: Date,
  ): PolicyDecision {
    if (this.empty) return ALLOW;
    const outcome = this.outcome(principal, tool);
    if (outcome.decision) return outcome.decision;
    if (countValues(args, ARGUMENT_VALUES_LIMIT) > ARGUMENT_VALUES_LIMIT)
      throw new PolicyInputTooLarge(
        `The arguments hold more than ${ARGUMENT_VALUES_LIMIT} values, too many for policy '${outcome.dependsOn?.name ?? ''}' to judge.`,
      );
    const variables = {
      principal: this.celPrincipal(principal),
      tool,
      args,
      now,
    };
    for (let index = outcome.from; index < this.policies.length; index += 1) {
      const policy = this.policies[index]!;
      if (this.test(policy, variables, tool, false) === true) return policy.decision;
    }
    return ALLOW;
  }

  private judgeListing(principal: Principal, tool: PolicyTool): ListOutcome {
    const variables = { principal: this.celPrincipal(principal), tool };
    let from = -1;
    let dependsOn: ListOutcome['dependsOn'] = null;
    let listed = false;
    for (let index = 0; index < this.policies.length; index += 1) {
      const policy = this.policies[index]!;
      const result = this.test(policy, variables, tool, true);
      if (result === 'depends') {
        if (from < 0) {
          from = index;
          dependsOn = policy.decision.policy;
        }
        listed ||= policy.effect !== 'deny';
      } else if (result) {
        listed ||= policy.effect !== 'deny';
        // Unlisted: every policy a call could reach first denies, so every call is denied.
        return from < 0 || !listed
          ? { listed, decision: policy.decision, from: index, dependsOn }
          : { listed, decision: null, from, dependsOn };
      }
    }
    return from < 0
      ? { listed: true, decision: ALLOW, from: this.policies.length, dependsOn }
      : { listed: true, decision: null, from, dependsOn };
  }

  /**
   * One policy on one tool: true, false, or (listing only) 'depends' when it failed for want of
   * the call's arguments or time. Any other failure does not match, and is reported.
   */
  private test(
    policy: Compiled,
    variables: Record<string, unknown>,
    tool: PolicyTool,
    listing: boolean,
  ): boolean | 'depends' {
    let result: unknown;
    try {
      result = policy.cel.evaluate(variables);
    } catch (error) {
      if (listing && policy.needsCall) return 'depends';
      this.onError(policy, tool.name, error);
      return false;
    }
    if (typeof result === 'boolean') return result;
    this.onError(policy, tool.name, new Error(`it gave ${typeof result}`));
    return false;
  }

  private celPrincipal(principal: Principal): Record<string, unknown> {
    return {
      subject: principal.subject,
      name: principal.name,
      user: principal.userId ?? '',
      role: principal.role,
      teams: principal.teamIds.flatMap((id) => {
        const name = this.teamNames.get(id);
        return name === undefined ? [] : [name];
      }),
      teamIds: [...principal.teamIds],
      token: principal.tokenId ?? '',
      source: principal.source,
    };
  }
}

const OPEN_OUTCOME: ListOutcome = { listed: true, decision: ALLOW, from: 0, dependsOn: null };

const NO_APPROVAL: PolicyApproval = { message: null, rememberSeconds: 0 };

function byOrder(a: PolicyDefinition, b: PolicyDefinition): number {
  return a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The values (list items, map entries, scalars) in a JSON value, counted up to `limit` + 1. */
export function countValues(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const next = stack.pop();
    count += 1;
    if (Array.isArray(next)) for (const item of next) stack.push(item);
    else if (typeof next === 'object' && next !== null)
      for (const item of Object.values(next)) stack.push(item);
  }
  return count;
}
