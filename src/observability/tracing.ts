import type * as Exporter from '@opentelemetry/exporter-trace-otlp-http';
import type * as Http from '@opentelemetry/instrumentation-http';
import type * as Pg from '@opentelemetry/instrumentation-pg';
import type * as SdkNode from '@opentelemetry/sdk-node';
import { loadOnUse } from '../common/load-on-use';
import { enableSpans } from './request-context';

/** The running OpenTelemetry SDK; its spans are flushed by `stopTracing`. */
let sdk: { shutdown(): Promise<void> } | null = null;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go to that OTLP/HTTP
 * endpoint (`/v1/traces`), incoming HTTP requests continue the client's W3C `traceparent`, and
 * PostgreSQL queries get spans. It must run before the app's modules are loaded (so that `http`
 * and `pg` can be instrumented). When the variable is unset nothing of the SDK is even loaded.
 */
export function startTracing(env: NodeJS.ProcessEnv): boolean {
  if (sdk || !env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return false;
  const { NodeSDK } = loadOnUse<typeof SdkNode>('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = loadOnUse<typeof Exporter>(
    '@opentelemetry/exporter-trace-otlp-http',
  );
  const { HttpInstrumentation } = loadOnUse<typeof Http>('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = loadOnUse<typeof Pg>('@opentelemetry/instrumentation-pg');
  const started = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'portico',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would drown the traces that matter.
        ignoreIncomingRequestHook: (request) =>
          /^\/(healthz|readyz|metrics)(\?|$)/.test(request.url ?? ''),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  started.start();
  sdk = started;
  enableSpans();
  return true;
}

/** Sends the spans still buffered and stops the SDK; nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = null;
  await running?.shutdown();
}
