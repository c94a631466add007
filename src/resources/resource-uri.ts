/**
 * How resources stay unambiguous on a prefixed server: a URI is shown behind its gateway's slug
 * and a `+`, as `<slug>+<upstream URI>` (`crm+file:///notes.md`). Slugs never contain `+`, so the
 * first `+` always ends the slug: two gateways' URIs can never meet, whatever they are. Templates
 * get the same prefix, so what a client expands from one is such a URI.
 */
import { DOT_SEGMENT } from '../common/dot-segment';

export const URI_SLUG_SEPARATOR = '+';

export function virtualUri(gatewaySlug: string, uri: string): string {
  return `${gatewaySlug}${URI_SLUG_SEPARATOR}${uri}`;
}

/** The slug and upstream URI of a prefixed URI; null when it has no slug. */
export function splitVirtualUri(uri: string): { gatewaySlug: string; uri: string } | null {
  const at = uri.indexOf(URI_SLUG_SEPARATOR);
  if (at <= 0) return null;
  return { gatewaySlug: uri.slice(0, at), uri: uri.slice(at + 1) };
}

/** SQL for `virtualUri` of the row under `alias`, from its slug and the URI `column`. */
export function virtualUriExpression(alias: string, column: 'uri' | 'uri_template'): string {
  return `("${alias}"."gateway_slug" || '${URI_SLUG_SEPARATOR}' || "${alias}"."${column}")`;
}

/** Characters RFC 3986 never needs escaped: their percent-encoded form names the same URI. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The form in which two spellings of one URI compare equal (after RFC 3986 §6.2.2): the scheme and
 * the authority in lower case, an escaped unreserved character unescaped and other escapes in
 * upper case, and `.` and `..` segments resolved, the authority counted as the first segment (as a
 * server that reads `skill://pdf/SKILL.md` as the file `pdf/SKILL.md` does). What an upstream
 * might read as one resource, such as `file:///notes/%73ecret.md` or `FILE:///notes/./secret.md`
 * for `file:///notes/secret.md`, is then one string; it may also join a few that no upstream
 * would, which is the safe side for what it is used for (what no one may read).
 */
export function comparableUri(uri: string): string {
  const escapes = uri.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const character = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : escape.toUpperCase();
  });
  const head = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?/.exec(escapes);
  if (!head) return escapes;
  const rest = escapes.slice(head[0].length);
  const end = rest.search(/[?#]/);
  let path = end < 0 ? rest : rest.slice(0, end);
  if (head[1]) {
    const slash = path.indexOf('/');
    path = slash < 0 ? path.toLowerCase() : path.slice(0, slash).toLowerCase() + path.slice(slash);
  }
  return head[0].toLowerCase() + withoutDotSegments(path) + (end < 0 ? '' : rest.slice(end));
}

/** A path with its `.` and `..` segments resolved (RFC 3986 §5.2.4). */
function withoutDotSegments(path: string): string {
  if (!DOT_SEGMENT.test(path)) return path;
  const kept: string[] = [];
  const segments = path.split('/');
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '..') {
      if (kept.length > 1 || (kept.length === 1 && kept[0] !== '')) kept.pop();
      if (last) kept.push('');
    } else if (segment === '.') {
      if (last) kept.push('');
    } else kept.push(segment);
  }
  return kept.join('/');
}
