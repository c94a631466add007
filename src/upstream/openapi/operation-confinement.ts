import { hasDotSegment } from '../../common/dot-segment';

/**
 * What an operation of a description may make Portico send with a gateway's credentials: a path
 * inside the base URL's path, and the headers a caller may set.
 */

/**
 * Header parameters no caller sets: those OpenAPI says are ignored (Accept, Content-Type,
 * Authorization), and those HTTP, the connection or Portico set (the Fetch standard's forbidden
 * request headers, trace context): a caller's `Host` would pick the virtual host the gateway's
 * credentials go to, a `Cookie` or `Proxy-Authorization` add credentials of their own; a method
 * override or an original URL would make a read another operation.
 */
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'authorization',
  'accept-charset',
  'accept-encoding',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'date',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'origin',
  'referer',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via',
  'traceparent',
  'tracestate',
  // What hosts and their proxies read as another method or another path than the operation's.
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
  'forwarded',
]);
const RESERVED_HEADER_PREFIXES = ['proxy-', 'sec-', 'access-control-request-', 'x-forwarded-'];

export function reservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_HEADERS.has(lower) || RESERVED_HEADER_PREFIXES.some((p) => lower.startsWith(p));
}

/**
 * Why an operation's path cannot be served, or null: a `.` or `..` segment (escaped or not)
 * would take the request, credentials and all, out of the base URL's path to another service of
 * its origin; a query or fragment belongs in parameters.
 */
export function pathProblem(path: string): string | null {
  if (!path.startsWith('/')) return 'its path does not start with /';
  if (/[?#]/.test(path)) return 'its path holds a query or fragment';
  // In every spelling some server reads as one: escaped, `\` or `%5C` for `/`, `..;`.
  return hasDotSegment(path)
    ? 'its path has a . or .. segment, which would leave the base URL'
    : null;
}
