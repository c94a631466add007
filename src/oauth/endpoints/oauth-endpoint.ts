import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { OAuthError, OAuthErrorCode, sendOAuthError } from './oauth-error';

export interface OAuthEndpointOptions {
  /** The HTTP methods it answers; any other gets 405 with `Allow`. */
  methods: readonly string[];
  /**
   * Any origin may call it (token, register, revoke, metadata): browser-based MCP clients need
   * that, and the endpoints take no cookies. The authorization endpoint is a browser navigation.
   */
  anyOrigin: boolean;
  /** Requests per client address and window, on this replica; none for the metadata. */
  limit?: { points: number; windowSeconds: number; message: string };
  /** The metadata may be cached; every other answer carries `Cache-Control: no-store`. */
  cacheable?: boolean;
}

/**
 * One endpoint of the authorization server, with what they all share: CORS for any origin where
 * asked, the allowed methods, a per-address rate limit, `Cache-Control: no-store`, and every
 * failure answered as an OAuth error. Only the endpoint's own path; anything under it goes on.
 */
export function oauthEndpoint(
  options: OAuthEndpointOptions,
  handle: (request: Request, response: Response) => Promise<void>,
): RequestHandler {
  const { limit } = options;
  const limiter = limit
    ? new RateLimiterMemory({ points: limit.points, duration: limit.windowSeconds })
    : null;
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.path !== '/') {
      next();
      return;
    }
    if (options.anyOrigin) {
      response.setHeader('Access-Control-Allow-Origin', '*');
      if (request.method === 'OPTIONS') {
        preflight(request, response, options.methods);
        return;
      }
    }
    if (!options.cacheable) response.setHeader('Cache-Control', 'no-store');
    if (!options.methods.includes(request.method)) {
      response.setHeader('Allow', options.methods.join(', '));
      sendOAuthError(
        response,
        new OAuthError(
          OAuthErrorCode.MethodNotAllowed,
          `The method ${request.method} is not allowed for this endpoint`,
        ),
      );
      return;
    }
    (limiter ? limiter.consume(request.ip ?? 'unknown') : Promise.resolve())
      .then(
        () => handle(request, response),
        (error: unknown) => {
          if (!(error instanceof RateLimiterRes) || !limit) throw error;
          response.setHeader('Retry-After', String(Math.ceil(error.msBeforeNext / 1000)));
          throw new OAuthError(OAuthErrorCode.TooManyRequests, limit.message);
        },
      )
      .catch((error: unknown) => sendOAuthError(response, error));
  };
}

/** A CORS preflight: any origin, the endpoint's methods, the headers the browser asks for. */
function preflight(request: Request, response: Response, methods: readonly string[]): void {
  const headers = request.headers['access-control-request-headers'];
  if (headers) {
    response.setHeader('Access-Control-Allow-Headers', headers);
    response.setHeader('Vary', 'Access-Control-Request-Headers');
  }
  response
    .status(204)
    .setHeader('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '))
    .setHeader('Content-Length', '0')
    .end();
}
