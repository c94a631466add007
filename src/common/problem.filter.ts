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
import { ApprovalErrorCode, ApprovalException } from '../approvals/approval.exception';
import { AuditErrorCode, AuditException } from '../audit/audit.exception';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import {
  ConfigDocumentErrorCode,
  ConfigDocumentException,
} from '../config-as-code/config-document.exception';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { PinErrorCode, PinException } from '../pinning/pin.exception';
import { PromptErrorCode, PromptException } from '../prompts/prompt.exception';
import { ResourceErrorCode, ResourceException } from '../resources/resource.exception';
import { ServerErrorCode, ServerException } from '../servers/server.exception';
import { TeamErrorCode, TeamException } from '../teams/team.exception';
import { TokenErrorCode, TokenException } from '../tokens/token.exception';
import { ToolErrorCode, ToolException } from '../tools/tool.exception';
import { UserErrorCode, UserException } from '../users/user.exception';
import { PolicyErrorCode, PolicyException } from '../policies/policy.exception';
import { RateLimitErrorCode, RateLimitException } from '../rate-limits/rate-limit.exception';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_DETAIL,
  isDatabaseUnavailable,
} from '../database/database-errors';
import { RequestValidationException } from './request-validation.exception';

export type DomainErrorCode =
  | GatewayErrorCode
  | ToolErrorCode
  | ResourceErrorCode
  | PromptErrorCode
  | PinErrorCode
  | ServerErrorCode
  | AuthErrorCode
  | UserErrorCode
  | TeamErrorCode
  | TokenErrorCode
  | ConfigDocumentErrorCode
  | PolicyErrorCode
  | RateLimitErrorCode
  | AuditErrorCode
  | ApprovalErrorCode;

export function statusOf(code: DomainErrorCode): number {
  switch (code) {
    case GatewayErrorCode.NotFound:
    case ToolErrorCode.NotFound:
    case ResourceErrorCode.NotFound:
    case ResourceErrorCode.TemplateNotFound:
    case PromptErrorCode.NotFound:
    case ApprovalErrorCode.NotFound:
    case ServerErrorCode.NotFound:
    case UserErrorCode.NotFound:
    case TeamErrorCode.NotFound:
    case TokenErrorCode.NotFound:
    case PolicyErrorCode.NotFound:
    case RateLimitErrorCode.NotFound:
      return HttpStatus.NOT_FOUND;
    case GatewayErrorCode.NameTaken:
    case GatewayErrorCode.SlugTaken:
    case GatewayErrorCode.UrlTaken:
    case GatewayErrorCode.ToolNameClash:
    case GatewayErrorCode.ToolNameTooLong:
    case GatewayErrorCode.Disabled:
    case GatewayErrorCode.SyncInProgress:
    case GatewayErrorCode.SyncSuperseded:
    case ToolErrorCode.Disabled:
    case ToolErrorCode.Quarantined:
    case PinErrorCode.Stale:
    case PinErrorCode.Quarantined:
    case ServerErrorCode.NameTaken:
    case PolicyErrorCode.NameTaken:
    case UserErrorCode.UsernameTaken:
    case UserErrorCode.BreakGlass:
    case UserErrorCode.NotLocal:
    case TeamErrorCode.NameTaken:
    case TeamErrorCode.InUse:
    case ServerErrorCode.NameClash:
    case ConfigDocumentErrorCode.Conflict:
      return HttpStatus.CONFLICT;
    case GatewayErrorCode.SlugEmpty:
    case GatewayErrorCode.NotOAuth:
    case GatewayErrorCode.AuthorizationFailed:
    case GatewayErrorCode.StdioCommandNotAllowed:
    case GatewayErrorCode.UpstreamIncompatible:
    case ServerErrorCode.UnknownTools:
    case ServerErrorCode.UnknownAlwaysLoaded:
    case UserErrorCode.UnknownTeams:
    case TeamErrorCode.Unknown:
    case TokenErrorCode.ScopeRequired:
    case TokenErrorCode.BeyondOwner:
    case ServerErrorCode.UnknownResources:
    case ServerErrorCode.UnknownResourceTemplates:
    case ServerErrorCode.UnknownPrompts:
    case ConfigDocumentErrorCode.Invalid:
    case ConfigDocumentErrorCode.SecretUnavailable:
    case ConfigDocumentErrorCode.UnknownReference:
    case PolicyErrorCode.UnknownTarget:
    case PolicyErrorCode.InvalidHooks:
    case PolicyErrorCode.InvalidApproval:
    case RateLimitErrorCode.UnknownTarget:
    case ToolErrorCode.ArgumentsTooLarge:
      return HttpStatus.UNPROCESSABLE_ENTITY;
    case RateLimitErrorCode.Exceeded:
      return HttpStatus.TOO_MANY_REQUESTS;
    case RateLimitErrorCode.Unavailable:
    case ToolErrorCode.UpstreamRefused:
      return HttpStatus.SERVICE_UNAVAILABLE;
    case AuditErrorCode.BadCursor:
    case PolicyErrorCode.InvalidExpression:
      return HttpStatus.BAD_REQUEST;
    case GatewayErrorCode.UpstreamUnavailable:
    case ToolErrorCode.UpstreamUnavailable:
      return HttpStatus.BAD_GATEWAY;
    case AuthErrorCode.InvalidCredentials:
    case AuthErrorCode.Unauthenticated:
      return HttpStatus.UNAUTHORIZED;
    case AuthErrorCode.Forbidden:
    case GatewayErrorCode.ConnectionForbidden:
    case ToolErrorCode.ApprovalRequired:
      return HttpStatus.FORBIDDEN;
    case AuthErrorCode.TooManyAttempts:
      return HttpStatus.TOO_MANY_REQUESTS;
  }
}

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
  if (
    error instanceof GatewayException ||
    error instanceof AuditException ||
    error instanceof ToolException ||
    error instanceof ResourceException ||
    error instanceof PromptException ||
    error instanceof PinException ||
    error instanceof ServerException ||
    error instanceof AuthException ||
    error instanceof UserException ||
    error instanceof TeamException ||
    error instanceof TokenException ||
    error instanceof ConfigDocumentException ||
    error instanceof PolicyException ||
    error instanceof RateLimitException ||
    error instanceof ApprovalException
  ) {
    const status = statusOf(error.code);
    return {
      ...error.details,
      type: `urn:portico:problem:${error.code}`,
      title: titleOf(status),
      status,
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

/** A problem document as the response, unless the response has begun already. */
export function sendProblem(response: ServerResponse, problem: Problem): void {
  if (response.headersSent) return;
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
