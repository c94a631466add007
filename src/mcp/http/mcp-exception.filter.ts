import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type ServerResponse } from 'node:http';
import { type Response } from 'express';
import { AuthException } from '../../auth/auth.exception';
import { sendProblem, toProblem } from '../../common/problem.filter';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../common/database-errors';
import { databaseUnavailable, jsonRpcError, McpRefusal, refusalOf } from '../protocol/mcp-errors';
import { errorMessage } from '../../common/error-message';

/**
 * Errors of the MCP endpoints as MCP clients read them: a JSON-RPC error body with the HTTP status,
 * as the SDK's own transports send them. Authentication stays the API's problem document, with
 * the `WWW-Authenticate` challenge clients follow.
 */
@Catch()
export class McpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(McpExceptionFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    sendMcpError(host.switchToHttp().getResponse<Response>(), error, this.logger);
  }
}

/**
 * An MCP endpoint's failure as its response: the problem document of an AuthException, else the
 * JSON-RPC error of a refusal (see refusalOf) with its status, else a logged 500 that shows
 * nothing of it.
 */
export function sendMcpError(response: ServerResponse, error: unknown, logger: Logger): void {
  // The connection is gone (the client left, or a timeout cut its request short): there is no one
  // to answer, and nothing failed here; slow clients cut by the hundred must not flood the log.
  if (response.destroyed) {
    logger.debug(`MCP request ended with its connection: ${String(error)}`);
    return;
  }
  if (error instanceof AuthException) {
    sendProblem(response, toProblem(error));
    return;
  }
  if (isDatabaseUnavailable(error)) {
    // An outage, not a bug: one line, and the client is told when to try again.
    logger.warn(`MCP request refused, the database is unavailable: ${errorMessage(error)}`);
    if (response.headersSent) {
      response.end();
      return;
    }
    const body = JSON.stringify(databaseUnavailable(null));
    response.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
    });
    response.end(body);
    return;
  }
  const refused = refusalOf(error);
  if (!refused)
    logger.error('MCP request failed', error instanceof Error ? error.stack : String(error));
  if (response.headersSent) {
    response.end();
    return;
  }
  const refusal = refused ?? new McpRefusal(500, 'Internal error', ProtocolErrorCode.InternalError);
  const body = JSON.stringify(
    jsonRpcError(refusal.id, refusal.code, refusal.message, refusal.data),
  );
  response.writeHead(refusal.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}
