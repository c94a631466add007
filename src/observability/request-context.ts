import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { type IncomingMessage, type ServerResponse } from 'node:http';

interface RequestContext {
  requestId: string;
  /** Set once something of this request went into the audit trail on its own (a sign-in, a token). */
  audited: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** A client's own X-Request-Id is kept when it is short and plain; anything else is replaced. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives every HTTP request an id (the client's `X-Request-Id` when sane), echoed in the response,
 * and keeps it for everything the request does: log lines and audit entries carry it.
 */
export function requestContext(
  request: IncomingMessage,
  response: ServerResponse,
  next: () => void,
): void {
  const given = request.headers['x-request-id'];
  const requestId =
    typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', requestId);
  (request as IncomingMessage & { id?: string }).id = requestId;
  storage.run({ requestId, audited: false }, next);
}

/** The id of the HTTP request being served, if any. */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/** Notes that the request is in the audit trail already: the change recorder then skips it. */
export function markAudited(): void {
  const store = storage.getStore();
  if (store) store.audited = true;
}

/** The request's context itself, for work that runs outside it (a response's `finish`). */
export function currentContext(): Readonly<RequestContext> | null {
  return storage.getStore() ?? null;
}

/**
 * Runs `work` outside the request being served: what it records in the audit trail is its own,
 * not the request's (a sync that a request started audits what it held back, and the request is
 * still recorded as itself).
 */
export function outsideRequest<T>(work: () => T): T {
  return storage.exit(work);
}

/** The trace id of the active span; null when tracing is off (the API's no-op span). */
export function currentTraceId(): string | null {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return null;
  return context.traceId;
}
