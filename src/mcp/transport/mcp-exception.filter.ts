import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { type Response } from 'express';
import { AuthException } from '../../auth/auth.exception';
import { ProblemFilter } from '../../common/problem.filter';
import { jsonRpcError, McpRefusal } from '../mcp-errors';

/**
 * Errors of the MCP endpoints as MCP clients read them: a JSON-RPC error body with the HTTP status,
 * as the SDK's own transports send them. Authentication stays the API's problem document, with
 * the `WWW-Authenticate` challenge clients follow.
 */
@Catch()
export class McpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(McpExceptionFilter.name);
  private readonly problems = new ProblemFilter();

  catch(error: unknown, host: ArgumentsHost): void {
    if (error instanceof AuthException) {
      this.problems.catch(error, host);
      return;
    }
    const response = host.switchToHttp().getResponse<Response>();
    if (!(error instanceof McpRefusal))
      this.logger.error('MCP request failed', error instanceof Error ? error.stack : String(error));
    if (response.headersSent) {
      response.end();
      return;
    }
    const refusal =
      error instanceof McpRefusal
        ? error
        : new McpRefusal(500, 'Internal error', ErrorCode.InternalError);
    response.status(refusal.status).json(jsonRpcError(refusal.id, refusal.code, refusal.message));
  }
}
