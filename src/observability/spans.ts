import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Set once by the tracing bootstrap before the app is built. While false nothing here makes a
 * span or touches a context: tracing costs nothing when it is off.
 */
let enabled = false;

export function enableSpans(): void {
  enabled = true;
}

const tracer = () => trace.getTracer('portico');

/** Runs `work` in a new active span, ended when `work` settles; failures mark it as an error. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | null) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!enabled) return work(null);
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
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
