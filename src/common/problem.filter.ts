import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import { type ServerResponse } from 'node:http';
import { type Request, type Response } from 'express';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_DETAIL,
  isDatabaseUnavailable,
} from './database-errors';
import { isDomainException } from './domain.exception';
import { problemStatusOf } from './problem-statuses';
import { RequestValidationException } from './request-validation.exception';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code?: string;
  [member: string]: unknown;
}

/** Maps whatever a request threw to an RFC 9457 problem document. */
export function toProblem(error: unknown): Problem {
  const domainStatus = problemStatusOf(error);
  if (domainStatus !== undefined && isDomainException(error)) {
    return {
      ...error.details,
      type: `urn:portico:problem:${error.code}`,
      title: titleOf(domainStatus),
      status: domainStatus,
      detail: error.message,
      code: error.code,
    };
  }
  if (error instanceof RequestValidationException) {
    const status = HttpStatus.UNPROCESSABLE_ENTITY;
    return {
      type: 'urn:portico:problem:validation',
      title: titleOf(status),
      status,
      detail: error.message,
      code: 'validation',
      errors: error.errors,
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const detail =
      typeof response === 'object' && response !== null && 'message' in response
        ? [response.message].flat().join('; ')
        : error.message;
    return { type: 'about:blank', title: titleOf(status), status, detail };
  }
  const bodyParser = bodyParserError(error);
  if (bodyParser) return bodyParser;
  if (isDatabaseUnavailable(error)) {
    // An outage, not a bug: the client may try again, and sendProblem sets Retry-After.
    return {
      type: 'urn:portico:problem:database-unavailable',
      title: titleOf(HttpStatus.SERVICE_UNAVAILABLE),
      status: HttpStatus.SERVICE_UNAVAILABLE,
      detail: DATABASE_UNAVAILABLE_DETAIL,
      code: 'database-unavailable',
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    };
  }
  return {
    type: 'about:blank',
    title: titleOf(500),
    status: 500,
    detail: 'An unexpected error occurred.',
  };
}

/** Errors thrown by Express's body parser carry `status`, and mostly `type`. */
function bodyParserError(error: unknown): Problem | null {
  if (typeof error !== 'object' || error === null || !('status' in error)) return null;
  const { status } = error;
  const type = 'type' in error ? error.type : undefined;
  if (type === 'entity.too.large') {
    const limit = 'limit' in error ? error.limit : undefined;
    return {
      type: 'about:blank',
      title: titleOf(413),
      status: 413,
      detail:
        typeof limit === 'number'
          ? `The request body is larger than ${limit} bytes, past the limit (BODY_LIMIT_BYTES).`
          : 'The request body is too large.',
    };
  }
  if (type === 'entity.parse.failed') {
    return {
      type: 'about:blank',
      title: titleOf(400),
      status: 400,
      detail: 'The request body is not valid JSON.',
    };
  }
  if (type === undefined && 'errno' in error && status === 400) {
    // zlib failed on a body whose Content-Encoding (gzip, deflate, br) is not what it has.
    return {
      type: 'about:blank',
      title: titleOf(400),
      status: 400,
      detail: 'The request body is not encoded as its Content-Encoding header says.',
    };
  }
  if (type !== undefined && typeof status === 'number' && status >= 400 && status < 500) {
    return {
      type: 'about:blank',
      title: titleOf(status),
      status,
      detail: String((error as { message?: unknown }).message),
    };
  }
  return null;
}

function titleOf(status: number): string {
  const name = HttpStatus[status];
  return typeof name === 'string'
    ? name
        .toLowerCase()
        .replace(/(^|_)(\w)/g, (_m, sep: string, c: string) => (sep ? ' ' : '') + c.toUpperCase())
    : 'Error';
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const problem = toProblem(error);
    if (problem.status >= 500 && problem.code !== undefined) {
      // A coded failure such as an unreachable upstream is an outcome, not a bug: no stack trace.
      this.logger.warn(`${request.method} ${request.originalUrl}: ${problem.detail}`);
    } else if (problem.status >= 500) {
      this.logger.error(
        `${request.method} ${request.originalUrl} failed`,
        error instanceof Error ? error.stack : String(error),
      );
    }
    sendProblem(response, problem);
  }
}

/**
 * A problem document as the response. One that has begun already (an export's rows, say) can no
 * longer say so: it is cut off, so that the client sees it incomplete instead of waiting forever.
 */
export function sendProblem(response: ServerResponse, problem: Problem): void {
  if (response.headersSent) {
    if (!response.writableEnded) response.destroy();
    return;
  }
  if (problem.status === 401 && !response.hasHeader('WWW-Authenticate'))
    response.setHeader('WWW-Authenticate', 'Bearer');
  if (typeof problem.retryAfterSeconds === 'number')
    response.setHeader('Retry-After', String(problem.retryAfterSeconds));
  const body = JSON.stringify(problem);
  response.writeHead(problem.status, {
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}
