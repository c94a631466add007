import { createHash } from 'node:crypto';
import { type Principal } from '../auth/principal';
import { type CelExpression, compileExpression, type PrincipalField } from './cel-expression';
import { type EvaluationTrace } from './cel-meter';
import { ArgumentReads } from './policy-input';
import { type PolicyApproval, type PolicyEffect } from './policy.entity';
import { type PolicyTool } from './policy-tool';
import { errorMessage } from '../common/error-message';
import { Memo } from '../common/memo';

export { ARGUMENT_VALUES_LIMIT } from './cel-limits';

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
  /**
   * An approve policy's definition as it decided (expression, effect, priority, approval), as a
   * digest: a remembered yes holds for this revision only, so that an edit asks people again.
   */
  revision?: string;
}

/** A policy whose evaluation failed on a tool or a call, and why. */
export interface PolicyFailure {
  policy: { id: string; name: string };
  reason: string;
}

/** How a principal's view lists a tool, and what a call decides when no argument can change it. */
export interface ListOutcome {
  /** Hidden only when every call would be denied (or fail). */
  listed: boolean;
  /** Determinate: the decision of every call. Null: the call decides, from policy `from` on. */
  decision: PolicyDecision | null;
  from: number;
  /** The first policy that needs the call's arguments or time, when there is one. */
  dependsOn: { id: string; name: string } | null;
  /**
   * A policy that failed on the tool before any other decided: the tool is hidden as by a deny
   * (the decision, for the dry run), and every call is refused with the failure.
   */
  failure: PolicyFailure | null;
}

/**
 * Called when a policy's expression fails on a tool or a call: it never counts as not matching;
 * the tool is hidden, or the call refused.
 */
export type PolicyErrorListener = (policy: PolicyDefinition, tool: string, error: unknown) => void;

/** A policy whose expression does not compile. */
export class PolicyCompileFailure extends Error {
  constructor(
    readonly policy: PolicyDefinition,
    error: unknown,
  ) {
    super(errorMessage(error), { cause: error });
  }
}

/**
 * A call the policies cannot judge: its arguments hold more than a policy may read, or (the
 * subclass) a policy failed on it. Either way the call is refused (JSON-RPC invalid params,
 * REST 422), never let through.
 */
export class PolicyInputTooLarge extends Error {}

/**
 * A policy whose evaluation failed on a call (a limit of the meter, a missing key, a wrong type,
 * not a bool): the call is refused, whatever the policy's effect, with the policy and the reason,
 * which the audit trail records with the refusal.
 */
export class PolicyEvaluationFailed extends PolicyInputTooLarge {
  constructor(readonly failure: PolicyFailure) {
    super(
      `Policy '${failure.policy.name}' could not judge this call, so it is refused: ${failure.reason}`,
    );
  }
}

/** Principal keys whose outcomes (and views, CallGuard) are kept; past it the memory starts over. */
export const VIEW_MEMORY = 1_000;

/**
 * Tools judged or listed for all those keys together: a policy that reads `principal.token` keys
 * every token apart, and a member can mint tokens, so a count of keys alone let 1,000 views of a
 * 10,000-tool server grow a replica by gigabytes. Past it the memory starts over too.
 */
export const VIEW_TOOLS = 100_000;

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
  /** No policy: everything is open, and nothing need be judged. */
  readonly empty: boolean;
  private readonly fields: ReadonlySet<PrincipalField>;
  /** The teams (by id) that can make two principals differ; null: all of them. */
  private readonly keyTeams: ReadonlySet<string> | null;
  private readonly views = new Memo<string, Map<string, ListOutcome>>(VIEW_MEMORY);
  /** Outcomes held in `views`, all keys together (VIEW_TOOLS). */
  private judged = 0;
  private versionDigest?: string;

  private constructor(
    private readonly policies: readonly Compiled[],
    /** Team names by id, read when the scope was built. */
    private readonly teamNames: ReadonlyMap<string, string>,
    private readonly onError: PolicyErrorListener,
  ) {
    this.empty = policies.length === 0;
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
          ...(definition.effect === 'approve' ? { revision: revisionOf(definition) } : {}),
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
      if (this.judged >= VIEW_TOOLS || this.views.size >= VIEW_MEMORY) {
        this.views.clear();
        this.judged = 0;
      }
      view = this.views.remember(key, new Map());
    }
    let outcome = view.get(tool.id);
    if (!outcome) {
      outcome = this.judgeListing(principal, tool);
      view.set(tool.id, outcome);
      this.judged += 1;
    }
    return outcome;
  }

  /**
   * What a call decides. Determinate listings are a map lookup; otherwise the call-dependent
   * policies evaluate with the arguments and the time. Throws PolicyInputTooLarge for arguments
   * larger than a policy reads, and PolicyEvaluationFailed for a policy that fails (fail closed).
   */
  decide(
    principal: Principal,
    tool: PolicyTool,
    args: Record<string, unknown>,
    now: Date,
  ): PolicyDecision {
    if (this.empty) return ALLOW;
    const outcome = this.outcome(principal, tool);
    if (outcome.failure) throw new PolicyEvaluationFailed(outcome.failure);
    if (outcome.decision) return outcome.decision;
    const reads = new ArgumentReads(args);
    const variables = {
      principal: this.celPrincipal(principal),
      tool,
      args,
      now,
    };
    for (let index = outcome.from; index < this.policies.length; index += 1) {
      const policy = this.policies[index]!;
      const refusal = policy.cel.uses.args ? reads.refusal(policy.cel.argumentFields) : null;
      if (refusal)
        throw new PolicyInputTooLarge(`${refusal}, too much for policy '${policy.name}' to judge.`);
      const result = this.test(policy, variables, tool, false);
      if (typeof result === 'object') throw new PolicyEvaluationFailed(result);
      if (result === true) return policy.decision;
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
      } else if (typeof result === 'object') {
        // As a deny: hidden, unless a call-dependent policy before it may let calls through,
        // which then evaluate it again and are refused if they reach it.
        return from < 0
          ? {
              listed,
              decision: { effect: 'deny', policy: result.policy, approval: null },
              from: index,
              dependsOn,
              failure: result,
            }
          : { listed, decision: null, from, dependsOn, failure: null };
      } else if (result) {
        listed ||= policy.effect !== 'deny';
        // Unlisted: every policy a call could reach first denies, so every call is denied.
        return from < 0 || !listed
          ? { listed, decision: policy.decision, from: index, dependsOn, failure: null }
          : { listed, decision: null, from, dependsOn, failure: null };
      }
    }
    return from < 0
      ? { listed: true, decision: ALLOW, from: this.policies.length, dependsOn, failure: null }
      : { listed: true, decision: null, from, dependsOn, failure: null };
  }

  /**
   * One policy on one tool: true, false, 'depends' (listing only) when it failed having read the
   * call's arguments or time, which a listing lacks, or the failure. A failure is reported, and
   * never counts as false.
   */
  private test(
    policy: Compiled,
    variables: Record<string, unknown>,
    tool: PolicyTool,
    listing: boolean,
  ): boolean | 'depends' | PolicyFailure {
    const trace: EvaluationTrace = { readCall: false, spent: 0 };
    let result: unknown;
    try {
      result = policy.cel.evaluate(variables, trace);
    } catch (error) {
      if (listing && trace.readCall) return 'depends';
      return this.failed(policy, tool, error);
    }
    if (typeof result === 'boolean') return result;
    return this.failed(policy, tool, new Error(`it gave ${kindOf(result)}, not a bool`));
  }

  private failed(policy: Compiled, tool: PolicyTool, error: unknown): PolicyFailure {
    this.onError(policy, tool.name, error);
    return { policy: policy.decision.policy!, reason: errorMessage(error) };
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

const OPEN_OUTCOME: ListOutcome = {
  listed: true,
  decision: ALLOW,
  from: 0,
  dependsOn: null,
  failure: null,
};

const NO_APPROVAL: PolicyApproval = { message: null, rememberSeconds: 0 };

/** What a policy decides with, as a short digest (its name and id aside). */
function revisionOf({ expression, effect, priority, approval }: PolicyDefinition): string {
  return createHash('sha256')
    .update(JSON.stringify([expression, effect, priority, approval ?? NO_APPROVAL]))
    .digest('base64url')
    .slice(0, 22);
}

function byOrder(a: PolicyDefinition, b: PolicyDefinition): number {
  return a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'bigint') return 'an int';
  if (typeof value === 'number') return 'a double';
  return 'a map';
}
