import { type DynamicModule } from '@nestjs/common';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import pino from 'pino';
import pretty from 'pino-pretty';
import { type LogLevel, type ObservabilitySettings } from '../config/slices/observability.settings';
import { currentRequestId, currentTraceId } from './request-context';

const PINO_LEVELS: Record<LogLevel, pino.Level> = {
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** Probes and scrapes would bury the lines that matter. */
const QUIET_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

/**
 * What a log line says of a request: never its headers (credentials, cookies) nor its query (an
 * OAuth code, a legacy SSE session id), only the path.
 */
export function requestSummary(request: IncomingMessage & { id?: unknown }) {
  return {
    id: request.id,
    method: request.method,
    path: (request.url ?? '').split('?')[0],
    remoteAddress: request.socket?.remoteAddress,
  };
}

function responseSummary(response: ServerResponse) {
  return { statusCode: response.statusCode };
}

/** The pino options of every line: level, redaction, and the request and trace ids. */
export function pinoOptions(config: ObservabilitySettings): pino.LoggerOptions {
  return {
    level: PINO_LEVELS[config.logLevel],
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const requestId = currentRequestId();
      const traceId = currentTraceId();
      return { ...(requestId ? { requestId } : {}), ...(traceId ? { traceId } : {}) };
    },
    // A second net, should an object carrying credentials ever be logged.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.token',
        '*.accessToken',
        '*.clientSecret',
      ],
      censor: '[redacted]',
    },
  };
}

const roots = new WeakMap<ObservabilitySettings, pino.Logger>();

/** The one pino logger of an app: Nest's log lines and the request lines both go through it. */
function rootLogger(config: ObservabilitySettings): pino.Logger {
  let root = roots.get(config);
  if (!root) {
    root = pino(
      pinoOptions(config),
      config.logFormat === 'pretty'
        ? pretty({ colorize: false, singleLine: true, translateTime: 'SYS:HH:MM:ss.l' })
        : pino.destination({ dest: 1, sync: false }),
    );
    roots.set(config, root);
  }
  return root;
}

/**
 * Nest's logger through pino (nestjs-pino): JSON lines in production (LOG_FORMAT=json, the
 * default), one readable line each in development (LOG_FORMAT=pretty, the default with
 * NODE_ENV=development). Its own request middleware is not mounted (`forRoutes: []`): mounted by
 * Nest it would be a catch-all route; `requestLogging` is plain Express middleware instead.
 */
export function loggingModule(config: ObservabilitySettings): DynamicModule {
  return LoggerModule.forRoot({ pinoHttp: { logger: rootLogger(config) }, forRoutes: [] });
}

/**
 * One line for each request when it ends: method, path, status and time. Failures are `warn`
 * (4xx) and `error` (5xx); the rest are `debug`, so that at the default level a tools/call costs
 * no log write (nor a child logger: this is a plain `close` listener, not pino-http). Every line
 * of the request carries its request id and, with tracing on, its trace id.
 */
export function requestLogging(config: ObservabilitySettings) {
  const logger = rootLogger(config);
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    if (QUIET_PATHS.test(request.url ?? '')) {
      next();
      return;
    }
    const started = performance.now();
    // `close` comes outside the request's async context: keep its ids now.
    const requestId = currentRequestId();
    const traceId = currentTraceId();
    response.once('close', () => {
      const status = response.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          ...(requestId ? { requestId } : {}),
          ...(traceId ? { traceId } : {}),
          req: requestSummary(request),
          res: responseSummary(response),
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
    next();
  };
}
