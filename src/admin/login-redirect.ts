/** Paths a login may return to: same-site, an admin page or the OAuth consent page, no tricks. */
const SAFE_NEXT =
  /^\/(?:admin(?:\/[A-Za-z0-9\-._~/]*)?|oauth\/consent)(?:\?[A-Za-z0-9\-._~=&%+]*)?$/;

/** Where to go after logging in: the requested page, or the dashboard. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !SAFE_NEXT.test(next) || next.includes('..')) return '/admin';
  if (
    next === '/admin/login' ||
    next.startsWith('/admin/login?') ||
    next.startsWith('/admin/logout')
  ) {
    return '/admin';
  }
  return next;
}

/** The login page, remembering the page that asked for it. */
export function loginPath(requested: string): string {
  const next = safeNext(requested);
  return next === '/admin' ? '/admin/login' : `/admin/login?next=${encodeURIComponent(next)}`;
}
