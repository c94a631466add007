import { Logger } from '@nestjs/common';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { type Response } from 'express';

export { OAuthError, OAuthErrorCode };

const logger = new Logger('OAuth');

/** The status of an OAuth error answered directly: 400 (RFC 6749 §5.2, RFC 7591 §3.2.2) unless here. */
const STATUS: Partial<Record<string, number>> = {
  [OAuthErrorCode.ServerError]: 500,
  [OAuthErrorCode.TemporarilyUnavailable]: 503,
  [OAuthErrorCode.TooManyRequests]: 429,
  [OAuthErrorCode.MethodNotAllowed]: 405,
};

/**
 * What a thrown error becomes on the authorization server: an OAuthError as it says, anything
 * else (a bug, the database gone) a bare server_error, logged here, with nothing of it leaked.
 */
export function asOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  logger.error(
    `OAuth endpoint failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return new OAuthError(OAuthErrorCode.ServerError, 'Internal Server Error');
}

/** Answers with the error as a JSON body: `error`, `error_description`, never cached. */
export function sendOAuthError(response: Response, error: unknown): void {
  const oauth = asOAuthError(error);
  if (response.headersSent) {
    response.end();
    return;
  }
  response
    .status(STATUS[oauth.code] ?? 400)
    .setHeader('Cache-Control', 'no-store')
    .json(oauth.toResponseObject());
}
