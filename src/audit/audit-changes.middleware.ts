import { type NextFunction, type Request, type Response } from 'express';
import { currentContext, currentTraceId } from '../observability/request-context';
import { type AuditOutcome } from './audit-entry.entity';
import { actor, type AuditTrail } from './audit-trail.service';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const UUID_IN_PATH = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function outcomeOf(status: number): AuditOutcome {
  if (status === 401 || status === 403) return 'denied';
  return status >= 400 ? 'error' : 'ok';
}

/**
 * What a change came to where the response says otherwise: a refused admin form that redirects
 * back with its reason is recorded with the status the REST API would answer (403: denied).
 */
export function auditAs(response: Response, status: number): void {
  response.locals.auditStatus = status;
}

/** Only the REST API and the admin pages; MCP endpoints have their own entries. */
export function changesPath(path: string): boolean {
  return path.startsWith('/api/') || path.startsWith('/admin/') || path === '/admin';
}

/**
 * Records every change made through the REST API or the admin pages, when its response is sent:
 * who (the principal the guard found, if any), the route, the record id it names (or the `id` of
 * the record it created) and the outcome. Never the body: that is where secrets travel. A request
 * that went into the trail on its own (a sign-in, a token) is not recorded twice.
 */
export function auditChanges(trail: AuditTrail) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!MUTATING.has(request.method) || !changesPath(request.path)) {
      next();
      return;
    }
    const started = performance.now();
    // `finish` is emitted outside the request's async context: keep what the entry needs of it.
    const context = currentContext();
    const traceId = currentTraceId();
    let createdId: string | null = null;
    const json = response.json.bind(response);
    response.json = (body: unknown) => {
      const id = (body as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && UUID_IN_PATH.test(id)) createdId = id;
      return json(body);
    };
    response.once('finish', () => {
      if (context?.audited) return;
      const route = (request.route as { path?: unknown } | undefined)?.path;
      const path = typeof route === 'string' ? `${request.baseUrl}${route}` : request.path;
      const status =
        typeof response.locals.auditStatus === 'number'
          ? response.locals.auditStatus
          : response.statusCode;
      trail.record({
        kind: 'change',
        action: `${request.method} ${path}`.slice(0, 200),
        outcome: outcomeOf(status),
        status,
        durationMs: performance.now() - started,
        ...actor(request.principal),
        target: UUID_IN_PATH.exec(request.path)?.[0] ?? createdId,
        requestId: context?.requestId ?? null,
        traceId,
      });
    });
    next();
  };
}
