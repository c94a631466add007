import { type NextFunction, type Request, type Response } from 'express';
import { type Metrics } from './metrics';

/**
 * Times every HTTP request into `portico_http_request_duration_seconds`, labelled by the route
 * pattern Express matched (`/api/v1/gateways/:id`), so that ids never become label values.
 */
export function httpMetrics(metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = performance.now();
    response.once('close', () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      metrics.recordHttpRequest(
        request.method,
        typeof route === 'string' ? `${request.baseUrl}${route}` : 'unmatched',
        response.statusCode,
        (performance.now() - started) / 1000,
      );
    });
    next();
  };
}
