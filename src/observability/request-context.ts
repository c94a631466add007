/**
 * What a request carries through everything it does: its id (log lines and audit entries carry
 * it), and with tracing on its trace and the spans it makes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
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
  const active = trace.getActiveSpan()?.spanContext();
  if (!active || !trace.isSpanContextValid(active)) return null;
  return active.traceId;
}

/**
 * Set once by the tracing bootstrap before the app is built. While false nothing here makes a
 * span or touches a context: tracing costs nothing when it is off.
 */
let enabled = false;

export function enableSpans(): void {
  enabled = true;
}

const tracer = () => trace.getTracer('portico');

/**
 * Runs `work` in a new active span, ended when `work` settles; failures mark it as an error. The
 * span's attributes are built only when tracing is on; off, `work` runs as it is, no wrapper
 * around it (this is on every MCP request's path, twice).
 */
export function inSpan<T>(
  name: string,
  attributes: () => Attributes,
  work: (span: Span | null) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!enabled) return work(null);
  return tracer().startActiveSpan(name, { kind, attributes: attributes() }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds the active context's `traceparent` (and `tracestate`) to outgoing HTTP headers. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (!enabled) return headers;
  const carrier: Record<string, string> = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

export { SpanKind, SpanStatusCode };
