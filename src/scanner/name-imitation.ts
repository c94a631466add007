import { type ContextCheck } from './rules';
import {
  type KnownTool,
  LOOKALIKE_SLUG_MIN,
  NAME_LIMIT,
  nameSkeleton,
  plainName,
  type ScanContext,
} from './tool-name-index';

/** A name that imitates another gateway's tool or name, and which. */
export interface Imitation {
  check: ContextCheck;
  gateway: string;
  tool: string;
}

/** How many leading words of a name are tried as a gateway's name (`google_maps_…` is two). */
const PREFIX_WORDS = 3;
/** A slug or tool name this short can be in another name by chance. */
const SURE_MIN = 5;
/** Shorter names have too many real neighbours for a swapped pair of letters to mean anything. */
const TRANSPOSED_MIN = 6;

/**
 * How `name` imitates the tools of other gateways. The same name on another gateway is not an
 * imitation: many servers have a `search`. What is: a name spelt with lookalike characters, a
 * name that carries another gateway's slug (or one a letter away) before that gateway's tool
 * name, and a known name with two letters swapped.
 */
export function imitationsOf(name: string, context: ScanContext): Imitation[] {
  const { tools, gatewaySlug: own } = context;
  const found: Imitation[] = [];
  const plain = plainName(name);
  // No known name is longer, so no longer name can imitate one.
  if (plain === '' || name.length > 2 * NAME_LIMIT + 1) return found;
  const knownElsewhere = tools.othersWithPlain(plain, own).length > 0;

  if (!knownElsewhere) {
    const lookalike = tools.lookalikesOf(nameSkeleton(name), plain, own)[0];
    if (lookalike !== undefined) found.push(imitation('lookalike-characters', lookalike));
  }

  const prefixed = prefixImitation(name, context);
  if (prefixed !== null) found.push(prefixed);

  if (!knownElsewhere && plain.length >= TRANSPOSED_MIN) {
    for (let i = 0; i + 1 < plain.length; i++) {
      if (plain[i] === plain[i + 1]) continue;
      const swapped = plain.slice(0, i) + plain[i + 1]! + plain[i]! + plain.slice(i + 2);
      const original = tools.othersWithPlain(swapped, own)[0];
      if (original === undefined) continue;
      found.push(imitation('transposed-name', original));
      break;
    }
  }
  return found;
}

function imitation(check: ContextCheck, tool: KnownTool): Imitation {
  return { check, gateway: tool.gatewaySlug, tool: tool.name };
}

/** The words of a name: `githubCreate_issue` is `github`, `create`, `issue`. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s._-]+/)
    .filter((word) => word !== '');
}

/**
 * A name whose first words are another gateway's slug, or one a letter away from it: with that
 * gateway's tool name after them it poses as the tool (`github_create_issue` on a gateway that is
 * not `github`), without one it only borrows the name. A gateway whose own slug contains those
 * words (`github-enterprise`) is not imitating anyone.
 */
function prefixImitation(name: string, context: ScanContext): Imitation | null {
  const { tools, gatewaySlug: own } = context;
  const ownPlain = plainName(own);
  const words = wordsOf(name);
  for (let count = 1; count <= PREFIX_WORDS && count < words.length; count++) {
    const prefix = words.slice(0, count).join('').toLowerCase();
    if (related(ownPlain, prefix)) continue;
    const rest = words.slice(count).join('').toLowerCase();
    const exact = tools.gatewayOf(prefix);
    if (exact !== undefined && exact !== own) {
      // `search_web` beside a gateway `search` with a tool `web` is too likely by chance.
      const tool =
        prefix.length >= SURE_MIN && rest.length >= SURE_MIN ? tools.toolOf(exact, rest) : null;
      return tool !== null
        ? imitation('impersonated-tool', tool)
        : { check: 'embedded-slug', gateway: exact, tool: '' };
    }
    if (prefix.length < LOOKALIKE_SLUG_MIN) continue;
    const near = tools
      .gatewaysOneEditFrom(prefix)
      .filter((slug) => slug !== own && !related(ownPlain, plainName(slug)));
    for (const slug of near) {
      const tool = tools.toolOf(slug, rest);
      if (tool !== null) return imitation('impersonated-tool', tool);
    }
    if (near[0] !== undefined) return { check: 'lookalike-slug', gateway: near[0], tool: '' };
  }
  return null;
}

/**
 * Whether one plain name contains the other: a gateway `slack-2`, or `github-enterprise`, may
 * name its tools after `slack` or `github`. Very short slugs relate only to themselves.
 */
function related(ownPlain: string, other: string): boolean {
  if (ownPlain.length < 3 || other.length < 3) return ownPlain === other;
  return ownPlain.includes(other) || other.includes(ownPlain);
}
