import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type NextFunction, type Request, type Response } from 'express';
import { type Metrics } from '../observability/metrics';

/**
 * Times every HTTP request into `portico_http_request_duration_seconds`, labelled by the route
 * pattern Express matched (`/api/v1/gateways/:id`), so that ids never become label values.
 */
export function httpMetrics(metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    timeRequest(metrics, request, response, () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      return typeof route === 'string' ? `${request.baseUrl}${route}` : 'unmatched';
    });
    next();
  };
}

/** Times one request from now until its response closes, under the route `routeOf` names then. */
export function timeRequest(
  metrics: Metrics,
  request: IncomingMessage,
  response: ServerResponse,
  routeOf: () => string,
): void {
  const started = performance.now();
  response.once('close', () =>
    metrics.recordHttpRequest(
      request.method ?? '',
      routeOf(),
      response.statusCode,
      (performance.now() - started) / 1000,
    ),
  );
}
