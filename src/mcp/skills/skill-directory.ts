import { type Principal } from '../../auth/principal';
import { type PolicyTool } from '../../policies/policy-tool';
import { withStandardAnnotations } from '../../policies/policy-input';
import {
  clientSkillUri,
  directoryOf,
  type SkillFileEntry,
  type SkillUriMap,
  type UpstreamCacheHint,
  type UpstreamSkill,
} from '../../skills/skill-manifest';
import { hasDotSegment } from '../../common/dot-segment';
import { comparableUri } from '../../resources/resource-uri';
import { type ScopeDirectory } from '../directory/scope-directory';

/** Path segments walked up from a URI to find the skill that holds it. */
const MAX_URI_DEPTH = 64;

/** Where the Skills extension keeps skills' files (SEP-2640); a scheme's case does not count. */
const SKILL_SCHEME = /^skill:/i;

/** One skill a scope serves, as the core routes it. */
export interface ServedSkill {
  id: string;
  gatewayId: string;
  gatewaySlug: string;
  /** The canonical name, `gateway_slug + SEP + name`: what policies judge. */
  name: string;
  /** Its SKILL.md URI as this scope's clients see it. */
  clientUri: string;
  entry: UpstreamSkill;
  manifestHash: string;
  /** Not served: its manifest is not the approved one. */
  held: boolean;
  /** The approved files by upstream URI (null: `dynamic`, or none approved). */
  approvedFiles: ReadonlyMap<string, SkillFileEntry> | null;
  directoryRead: boolean;
  hint: UpstreamCacheHint;
  policy: PolicyTool;
}

/**
 * Every stored skill's directory, by gateway and upstream URI (as `comparableUri` spells it):
 * served or not, enabled or not. A gateway that declares the extension is here even without a
 * stored skill.
 */
export type SkillClaims = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The skills one scope serves, built from the catalogue (enabled, of an enabled gateway, a member
 * of the server), with their client URIs: the scope's lookups by URI are map lookups. The
 * directory of every scope (`/mcp`) also holds every skill's claim on its upstream's URIs.
 */
export class SkillDirectory {
  private readonly bySkillUri = new Map<string, ServedSkill>();
  private readonly byDirectory = new Map<string, ServedSkill>();

  constructor(
    readonly map: SkillUriMap,
    readonly skills: readonly ServedSkill[],
    private readonly claims: SkillClaims = new Map(),
  ) {
    for (const skill of skills) {
      this.bySkillUri.set(skill.clientUri, skill);
      this.byDirectory.set(directoryOf(skill.clientUri), skill);
    }
  }

  /** Whether the scope serves skills at all: only then is the extension advertised. */
  get declared(): boolean {
    return this.skills.length > 0;
  }

  /** Whether any member's upstream serves `resources/directory/read`. */
  get directoryRead(): boolean {
    return this.skills.some((skill) => skill.directoryRead);
  }

  /** The skill whose SKILL.md the client's URI names. */
  skill(clientUri: string): ServedSkill | undefined {
    return this.bySkillUri.get(clientUri);
  }

  /**
   * The skill whose directory holds the client's URI (a file, a subdirectory, or itself). None
   * for a URI with a `.` or `..` segment, which a server may resolve to another skill's file.
   */
  owner(clientUri: string): ServedSkill | undefined {
    if (this.skills.length === 0 || hasDotSegment(clientUri)) return undefined;
    return withinDirectory(clientUri, (candidate) => this.byDirectory.get(candidate));
  }

  /**
   * Whether a URI of the gateway's upstream is a skill's file, which only the skill may serve
   * (approved, visible, enabled), never an ordinary resource read: on a gateway with skills (or
   * that declares the extension), any `skill://` URI, since the extension keeps its files there
   * (a skill added upstream is one before a sync has stored it); elsewhere a URI in a stored
   * skill's directory.
   */
  claimed(gatewayId: string, upstreamUri: string): boolean {
    const directories = this.claims.get(gatewayId);
    if (!directories) return false;
    if (SKILL_SCHEME.test(upstreamUri)) return true;
    return (
      withinDirectory(
        comparableUri(upstreamUri),
        (candidate) => directories.has(candidate) || undefined,
      ) ?? false
    );
  }

  /** An upstream URI of the skill's gateway as this scope's clients see it. */
  clientUri(skill: ServedSkill, upstreamUri: string): string {
    return clientSkillUri(this.map, skill.gatewaySlug, upstreamUri);
  }

  /** The upstream URI behind a client's URI of this skill (same gateway). */
  upstreamUri(skill: ServedSkill, clientUri: string): string {
    if (this.map.original) return clientUri;
    return clientUri.slice(skill.gatewaySlug.length + 1);
  }
}

/** Whether the scope serves the skill to the principal: approved, and listed by its policies. */
export function servedTo(
  directory: ScopeDirectory,
  principal: Principal,
  skill: ServedSkill,
): boolean {
  return !skill.held && directory.guard.policy.listed(principal, skill.policy);
}

/** The first directory, walking up from `uri` (itself included), for which `found` says something. */
function withinDirectory<T>(
  uri: string,
  found: (directory: string) => T | undefined,
): T | undefined {
  if (!uri.includes('://')) return undefined;
  let candidate = uri;
  for (let depth = 0; depth < MAX_URI_DEPTH; depth++) {
    const result = found(candidate);
    if (result !== undefined) return result;
    const slash = candidate.lastIndexOf('/');
    if (slash <= candidate.indexOf('://') + 2) return undefined;
    candidate = candidate.slice(0, slash);
  }
  return undefined;
}

/**
 * The policy record of a skill: the CEL variable `tool`, shaped as a tool's so that every policy
 * written for tools reads it (a rule on `tool.name` matches the skill's canonical name). A skill
 * has no annotations of its own: the cautious defaults. `hash` is the manifest hash, `pinnedHash`
 * the approved one.
 */
export function policySkillOf(
  skill: {
    id: string;
    gatewaySlug: string;
    name: string;
    manifestHash: string;
    pinnedHash: string | null;
  },
  canonicalName: string,
  listedName: string,
): PolicyTool {
  return {
    id: skill.id,
    name: canonicalName,
    listedName,
    originalName: skill.name,
    gateway: skill.gatewaySlug,
    title: '',
    annotations: withStandardAnnotations(null),
    hash: skill.manifestHash,
    pinnedHash: skill.pinnedHash ?? '',
  };
}
