import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';
import { isJsonObject, type JsonObject } from '../common/json-value';
import { unstorableJson } from '../common/untrusted-text';
import { splitVirtualUri, virtualUri } from '../resources/resource-uri';

/** The Skills extension (SEP-2640) as servers advertise it in `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Bounds on one upstream skill entry; an entry beyond them is refused at sync, not stored. */
export const SKILL_BOUNDS = {
  /** The extension's interoperability limit on a skill's files, SKILL.md included. */
  files: 512,
  uriLength: 2048,
  /** The serialised frontmatter and `_meta` of one entry. */
  jsonBytes: 64 * 1024,
} as const;

const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** The Agent Skills naming rule the extension applies to a skill's name. */
const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
const SKILL_MD = 'SKILL.md';

/** One file of a skill as its manifest names it: what a client verifies what it reads against. */
export interface SkillFileEntry {
  uri: string;
  digest: string;
  size: number;
}

/** A skill's file manifest, or `dynamic` (the upstream publishes none). */
export type SkillFiles = SkillFileEntry[] | 'dynamic';

/** One skill as an upstream lists it, admitted: the shape `skills/list` and `skills/get` carry. */
export interface UpstreamSkill {
  uri: string;
  /** The frontmatter's `name`: the last segment of the skill's path. */
  name: string;
  frontmatter: JsonObject;
  resources: SkillFiles;
  meta: JsonObject | null;
}

/** Whether capabilities (an upstream's, or a scope's) carry the Skills extension. */
export function declaresSkills(capabilities: { extensions?: Record<string, unknown> }): boolean {
  return isJsonObject(capabilities.extensions?.[SKILLS_EXTENSION]);
}

/** Whether declared capabilities say `resources/directory/read` is served. */
export function declaresDirectoryRead(capabilities: {
  extensions?: Record<string, unknown>;
}): boolean {
  const settings = capabilities.extensions?.[SKILLS_EXTENSION];
  return isJsonObject(settings) && settings.directoryRead === true;
}

/** Why an upstream's skill entry is refused: its URI, where it has a usable one, and the reason. */
export interface SkillRefusal {
  uri: string | null;
  reason: string;
}

/**
 * A skill entry of an upstream, checked before anything is built from it; why it is refused
 * otherwise. The entry is kept as it came (frontmatter verbatim, digests as listed): a client
 * verifies the bytes it reads against exactly these.
 */
export function admitSkill(entry: unknown): UpstreamSkill | SkillRefusal {
  if (!isJsonObject(entry)) return { uri: null, reason: 'the entry is not an object' };
  const { uri } = entry;
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > SKILL_BOUNDS.uriLength)
    return {
      uri: null,
      reason: `uri must be a string of 1 to ${SKILL_BOUNDS.uriLength} characters`,
    };
  const admitted = admitAt(uri, entry);
  return typeof admitted === 'string' ? { uri, reason: admitted } : admitted;
}

/** The entry at `uri`, admitted, or the reason it is refused. */
function admitAt(uri: string, entry: JsonObject): UpstreamSkill | string {
  const { frontmatter, resources, _meta } = entry;
  // The extension keeps skills under `skill://`: a skill elsewhere would claim the reads of
  // another member's resources in its directory (`docs://notes/SKILL.md` over `docs://notes/…`).
  if (!/^skill:\/\//i.test(uri)) return 'not a skill:// URI';
  const name = skillNameOf(uri);
  if (name === undefined) return 'not the URI of a SKILL.md under a skill path';
  if (!isJsonObject(frontmatter)) return 'frontmatter is not an object';
  if (frontmatter.name !== name)
    return 'frontmatter.name does not equal the last segment of the skill path';
  if (typeof frontmatter.description !== 'string' || frontmatter.description.length === 0)
    return 'frontmatter.description is missing';
  if (!SKILL_NAME.test(name)) return `"${name}" breaks the skill naming rules`;
  if (_meta !== undefined && !isJsonObject(_meta)) return '_meta is not an object';
  const json = canonicalJson({ frontmatter, _meta: _meta ?? null });
  if (Buffer.byteLength(json) > SKILL_BOUNDS.jsonBytes)
    return `frontmatter and _meta exceed ${SKILL_BOUNDS.jsonBytes} bytes`;
  const files = admitFiles(uri, resources);
  if ('refused' in files) return files.refused;
  // Kept as it came, so what PostgreSQL cannot store is refused, not repaired.
  const unstorable = unstorableJson([uri, frontmatter, _meta ?? null, files.files]);
  if (unstorable) return unstorable;
  return { uri, name, frontmatter, resources: files.files, meta: (_meta as JsonObject) ?? null };
}

/** The manifest, or why it is refused (a sentence, never `dynamic`). */
function admitFiles(
  skillUri: string,
  resources: unknown,
): { files: SkillFiles } | { refused: string } {
  if (resources === 'dynamic') return { files: 'dynamic' };
  if (!Array.isArray(resources)) return { refused: 'resources is neither an array nor "dynamic"' };
  if (resources.length > SKILL_BOUNDS.files)
    return { refused: `more than ${SKILL_BOUNDS.files} files in the manifest` };
  const directory = directoryOf(skillUri);
  const files: SkillFileEntry[] = [];
  const seen = new Set<string>();
  for (const file of resources as unknown[]) {
    if (!isJsonObject(file)) return { refused: 'a manifest entry is not an object' };
    const { uri, digest, size } = file;
    if (typeof uri !== 'string' || uri.length > SKILL_BOUNDS.uriLength)
      return { refused: 'a manifest entry has no usable uri' };
    if (uri !== skillUri && !uri.startsWith(`${directory}/`))
      return { refused: `${uri} lies outside the skill's directory` };
    if (typeof digest !== 'string' || !DIGEST.test(digest))
      return { refused: `${uri}: digest is not sha256:<64 lowercase hex>` };
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      return { refused: `${uri}: size is not a non-negative integer` };
    if (seen.has(uri)) return { refused: `${uri} is listed twice` };
    seen.add(uri);
    files.push({ uri, digest, size });
  }
  if (!seen.has(skillUri)) return { refused: 'the manifest has no entry for SKILL.md itself' };
  return { files };
}

/** The skill name of a `…/<name>/SKILL.md` URI (its last path segment before SKILL.md). */
export function skillNameOf(uri: string): string | undefined {
  const at = uri.indexOf('://');
  if (at < 0) return undefined;
  const segments = uri.slice(at + 3).split('/');
  if (segments.length < 2 || segments[segments.length - 1] !== SKILL_MD) return undefined;
  const name = segments[segments.length - 2];
  return name ? name : undefined;
}

/** The skill's directory: its SKILL.md URI without `/SKILL.md`. */
export function directoryOf(skillUri: string): string {
  return skillUri.slice(0, -(SKILL_MD.length + 1));
}

/**
 * The hash a skill is pinned by: its URI, frontmatter and every file's digest and size (so a
 * changed byte of any listed file is a changed definition). A `dynamic` skill publishes no
 * digests: only its entry is pinned.
 */
export function manifestHash(
  skill: Pick<UpstreamSkill, 'uri' | 'frontmatter' | 'resources'>,
): string {
  const files =
    skill.resources === 'dynamic'
      ? 'dynamic'
      : [...skill.resources].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return createHash('sha256')
    .update(canonicalJson({ uri: skill.uri, frontmatter: skill.frontmatter, files }))
    .digest('hex');
}

/**
 * How a scope names an upstream's skill URIs: as they are on a server with original naming, and
 * otherwise behind the gateway's slug as every resource URI is (`<slug>+skill://…`). Only the
 * scheme gains the prefix, so the skill path, its last segment (the skill's name) and every file
 * under it stay as the upstream serves them, and SKILL.md's frontmatter still matches.
 */
export interface SkillUriMap {
  original: boolean;
}

export function clientSkillUri(map: SkillUriMap, gatewaySlug: string, uri: string): string {
  return map.original ? uri : virtualUri(gatewaySlug, uri);
}

/** The slug (null on an original-naming server) and upstream URI behind a client's URI. */
export function upstreamSkillUri(
  map: SkillUriMap,
  uri: string,
): { gatewaySlug: string | null; uri: string } | null {
  if (map.original) return { gatewaySlug: null, uri };
  return splitVirtualUri(uri);
}

/** A skill entry with every URI in it as the client names it; everything else as it came. */
export function clientEntry(
  entry: UpstreamSkill,
  rename: (uri: string) => string,
): Record<string, unknown> {
  return {
    uri: rename(entry.uri),
    frontmatter: entry.frontmatter,
    resources:
      entry.resources === 'dynamic'
        ? 'dynamic'
        : entry.resources.map((file) => ({ ...file, uri: rename(file.uri) })),
    ...(entry.meta ? { _meta: entry.meta } : {}),
  };
}

/** The cache hint a list or entry of one upstream came with, and when Portico read it. */
export interface UpstreamCacheHint {
  ttlMs: number | null;
  cacheScope: string | null;
  readAt: Date;
}

export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * The hint of an answer built from several upstreams' (SEP-2549): what is left of the shortest
 * upstream TTL since Portico read it, never longer than `capMs` (how long Portico itself may keep
 * serving what it read); an upstream that gave none counts as 0. `private` when any upstream said
 * so or gave none, or when the answer depends on who asks (`personal`: policies filter it).
 */
export function mergedCacheHint(
  hints: readonly UpstreamCacheHint[],
  capMs: number,
  personal: boolean,
  now = Date.now(),
): CacheHint {
  let ttlMs = capMs;
  let shared = !personal;
  for (const hint of hints) {
    const left = hint.ttlMs === null ? 0 : hint.ttlMs - (now - hint.readAt.getTime());
    ttlMs = Math.min(ttlMs, Math.max(0, Math.floor(left)));
    if (hint.cacheScope !== 'public') shared = false;
  }
  return { ttlMs: Math.max(0, ttlMs), cacheScope: shared ? 'public' : 'private' };
}

/** The hint an upstream's result carries, as far as it is well-formed. */
export function cacheHintOf(result: Record<string, unknown>, readAt: Date): UpstreamCacheHint {
  const { ttlMs, cacheScope } = result;
  return {
    ttlMs: typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 0 ? ttlMs : null,
    cacheScope: cacheScope === 'public' || cacheScope === 'private' ? cacheScope : null,
    readAt,
  };
}
