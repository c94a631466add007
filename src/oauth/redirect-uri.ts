const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemes a redirect must never use: they run or read something in the browser itself. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'blob:',
  'vbscript:',
  'about:',
]);

/**
 * Why a redirect URI is refused, or null: https anywhere, http only to loopback (RFC 8252 native
 * apps), or a private-use scheme of a native app; never a fragment (an empty one included), nor
 * a user name or password, which make the URI read as another host than the browser goes to
 * (`https://app.example@evil.example/cb`).
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not a URL`;
  }
  if (uri.includes('#')) return `${uri} has a fragment`;
  if (url.username !== '' || url.password !== '') return `${uri} holds a user name or password`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${uri} uses a scheme that is not allowed`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    return `${uri} must use https (http only to localhost)`;
  return null;
}

/** Whether a redirect URI goes back to a program on the user's own computer. */
export function isLoopbackRedirect(uri: string): boolean {
  return URL.canParse(uri) && LOOPBACK.has(new URL(uri).hostname);
}
