import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (bad JSON, malformed id).',
  401: 'Missing or invalid bearer token.',
  403: 'The token, or the role or teams of its user, may not do this.',
  404: 'No such record.',
  409: 'Conflict with existing state (duplicate name, slug or URL; a clash of virtual or original names).',
  413: 'Request body too large.',
  422: 'Validation failed; `errors` lists the fields.',
  429: 'Too many calls: a rate limit holds; `Retry-After` says when to try again.',
  502: 'The upstream MCP server failed or is unreachable.',
  503: 'Not available right now (the database, or an upstream Portico holds back while its circuit breaker is open); `Retry-After` says when to try again.',
};

/** Documents the problem+json answers of a protected route: 401 and 403, and these. */
export function ApiProblems(...statuses: number[]) {
  return applyDecorators(
    ApiBearerAuth(),
    ...[...new Set([401, 403, ...statuses])]
      .sort((a, b) => a - b)
      .map((status) =>
        ApiResponse({
          status,
          description: DESCRIPTIONS[status],
          content: { 'application/problem+json': {} },
        }),
      ),
  );
}
