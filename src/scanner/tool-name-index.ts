import { foldLookalikes } from './text-forms';

/** A tool of some gateway, by its upstream (original) name. */
export interface KnownTool {
  gatewaySlug: string;
  name: string;
}

/** Names and slugs past this length are not indexed (tool names stop at 128). */
export const NAME_LIMIT = 128;
/** Shorter slugs are too close to ordinary words to look for one-letter variants of them. */
export const LOOKALIKE_SLUG_MIN = 5;

/** A name without case or separators: `list_issues`, `listIssues` and `List-Issues` agree. */
export function plainName(name: string): string {
  return name.toLowerCase().replace(/[\s._-]+/g, '');
}

/**
 * A name with every lookalike folded: Cyrillic and Greek letters, `I` and `1` for `l`, `0` for
 * `o`, `rn` for `m`, `vv` for `w`. Two names with one skeleton read alike.
 */
export function nameSkeleton(name: string): string {
  return plainName(foldLookalikes(name).replace(/I/g, 'l'))
    .replace(/1/g, 'l')
    .replace(/0/g, 'o')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w');
}

/** Every string one deletion away from `word`, and `word` itself. */
function deletions(word: string): string[] {
  const out = [word];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/** Whether `a` becomes `b` by one insertion, deletion, substitution or swap of neighbours. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const restA = a.slice(start, endA);
  const restB = b.slice(start, endB);
  if (restA.length <= 1 && restB.length <= 1) return true;
  return restA.length === 2 && restB.length === 2 && restA[0] === restB[1] && restA[1] === restB[0];
}

interface Entry extends KnownTool {
  plain: string;
}

/**
 * The tools of every gateway, indexed by the forms the scanner compares names in, so that each
 * check is a few map lookups whatever the number of tools. Build it once per sync (or once for
 * a run over all gateways) and pass it to `scanContext`; it holds no gateway-specific state.
 */
export class ToolNameIndex {
  private readonly byName = new Map<string, Entry[]>();
  private readonly byPlain = new Map<string, Entry[]>();
  private readonly bySkeleton = new Map<string, Entry[]>();
  /** Plain slug → slug. */
  private readonly slugs = new Map<string, string>();
  /** Slug → the plain names of its tools. */
  private readonly toolsOf = new Map<string, Set<string>>();
  /** One deletion of a plain slug (or the slug itself) → the plain slugs it came from. */
  private readonly slugDeletions = new Map<string, Set<string>>();

  private constructor() {}

  static of(tools: Iterable<KnownTool>): ToolNameIndex {
    const index = new ToolNameIndex();
    for (const tool of tools) index.add(tool);
    return index;
  }

  private add({ gatewaySlug, name }: KnownTool): void {
    if (name.length > NAME_LIMIT || gatewaySlug.length > NAME_LIMIT || name === '') return;
    const entry: Entry = { gatewaySlug, name, plain: plainName(name) };
    listed(this.byName, name.toLowerCase()).push(entry);
    listed(this.byPlain, entry.plain).push(entry);
    listed(this.bySkeleton, nameSkeleton(name)).push(entry);
    let names = this.toolsOf.get(gatewaySlug);
    if (names === undefined) {
      names = new Set();
      this.toolsOf.set(gatewaySlug, names);
      const slug = plainName(gatewaySlug);
      if (slug !== '' && !this.slugs.has(slug)) {
        this.slugs.set(slug, gatewaySlug);
        if (slug.length >= LOOKALIKE_SLUG_MIN)
          for (const variant of deletions(slug)) {
            let from = this.slugDeletions.get(variant);
            if (from === undefined) this.slugDeletions.set(variant, (from = new Set()));
            from.add(slug);
          }
      }
    }
    names.add(entry.plain);
  }

  /** A tool of another gateway named exactly `lowerName` (case aside), or in virtual-name form. */
  referencedTool(lowerName: string, ownSlug: string): KnownTool | null {
    if (lowerName.length > 2 * NAME_LIMIT + 1) return null;
    const direct = this.byName.get(lowerName)?.find((entry) => entry.gatewaySlug !== ownSlug);
    if (direct !== undefined) return direct;
    for (let i = 1; i < lowerName.length - 1; i++) {
      if (!'-_.'.includes(lowerName[i]!)) continue;
      const slug = this.slugs.get(plainName(lowerName.slice(0, i)));
      if (slug === undefined || slug === ownSlug) continue;
      const rest = this.byName.get(lowerName.slice(i + 1));
      const tool = rest?.find((entry) => entry.gatewaySlug === slug);
      if (tool !== undefined) return tool;
    }
    return null;
  }

  /** Tools of other gateways whose plain name is `plain`. */
  othersWithPlain(plain: string, ownSlug: string): KnownTool[] {
    return (this.byPlain.get(plain) ?? []).filter((entry) => entry.gatewaySlug !== ownSlug);
  }

  /** Tools of other gateways that read like `skeleton` but are spelt differently from `plain`. */
  lookalikesOf(skeleton: string, plain: string, ownSlug: string): KnownTool[] {
    return (this.bySkeleton.get(skeleton) ?? []).filter(
      (entry) => entry.gatewaySlug !== ownSlug && entry.plain !== plain,
    );
  }

  /** The gateway whose plain slug is `plain`, if any. */
  gatewayOf(plain: string): string | undefined {
    return this.slugs.get(plain);
  }

  /** Gateways whose plain slug is one edit away from `plain`. */
  gatewaysOneEditFrom(plain: string): string[] {
    if (plain.length < LOOKALIKE_SLUG_MIN - 1) return [];
    const found = new Set<string>();
    for (const variant of deletions(plain))
      for (const slug of this.slugDeletions.get(variant) ?? [])
        if (oneEditApart(plain, slug)) found.add(this.slugs.get(slug)!);
    return [...found];
  }

  /** The gateway's tool whose plain name is `plain`, if it has one. */
  toolOf(gatewaySlug: string, plain: string): KnownTool | null {
    if (!this.toolsOf.get(gatewaySlug)?.has(plain)) return null;
    return this.byPlain.get(plain)!.find((entry) => entry.gatewaySlug === gatewaySlug) ?? null;
  }
}

function listed<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (list === undefined) map.set(key, (list = []));
  return list;
}

/** What the scanner knows of the gateway whose definitions it reads, and of all the others. */
export interface ScanContext {
  /** The gateway's own slug. */
  gatewaySlug: string;
  /** The upstream names of the gateway's tools, lower-cased: references to them are normal. */
  ownTools: ReadonlySet<string>;
  /** Every gateway's tools; the gateway's own are told apart by slug. */
  tools: ToolNameIndex;
}

/**
 * The context for one gateway's scan. `tools` may be the tools of other gateways (the gateway's
 * own are skipped by slug) or an index built once for many scans.
 */
export function scanContext(input: {
  gatewaySlug: string;
  ownTools: Iterable<string>;
  tools: Iterable<KnownTool> | ToolNameIndex;
}): ScanContext {
  return {
    gatewaySlug: input.gatewaySlug,
    ownTools: new Set([...input.ownTools].map((name) => name.toLowerCase())),
    tools: input.tools instanceof ToolNameIndex ? input.tools : ToolNameIndex.of(input.tools),
  };
}
