/**
 * How resources stay unambiguous on a prefixed server: a URI is shown behind its gateway's slug
 * and a `+`, as `<slug>+<upstream URI>` (`crm+file:///notes.md`). Slugs never contain `+`, so the
 * first `+` always ends the slug: two gateways' URIs can never meet, whatever they are. Templates
 * get the same prefix, so what a client expands from one is such a URI.
 */
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
