import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { hostAllowed, type OriginPolicy } from './http-request';

/** What Kubernetes probes and Prometheus ask for by the pod's address; they read no session. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * DNS-rebinding defence for the admin pages, the REST API and the OAuth server: a request must
 * name Portico in its Host (PUBLIC_URL's host, ALLOWED_HOSTS, the hosts of ALLOWED_ORIGINS, or
 * loopback), else a page on a rebound name could use Portico as its own origin. The MCP paths are
 * refused earlier with a JSON-RPC error of their own.
 */
export function hostCheck(policy: OriginPolicy): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    if (PROBE_PATHS.has(request.path) || hostAllowed(request.headers.host, policy)) {
      next();
      return;
    }
    response.status(403).type('application/problem+json').json({
      type: 'urn:portico:problem:host_not_allowed',
      title: 'Forbidden',
      status: 403,
      detail: 'Host not allowed: add it to ALLOWED_HOSTS if Portico is reached by this name.',
      code: 'host_not_allowed',
    });
  };
}
