import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { nestingDepth } from './json-value';

/** What the body parsers' own errors look like, so that the problem filter maps it alike. */
export class BodyTooDeepError extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';

  constructor(readonly limit: number) {
    super(
      `The request body is nested more than ${limit} levels deep, past the limit (JSON_MAX_DEPTH).`,
    );
  }
}

/**
 * Refuses parsed bodies nested deeper than `maxDepth` before anything walks them: validation,
 * the NUL check and the OAuth handlers recurse into what they are given.
 */
export function bodyDepthLimit(maxDepth: number): RequestHandler {
  return (request: Request, _response: Response, next: NextFunction) =>
    next(
      nestingDepth(request.body, maxDepth) > maxDepth ? new BodyTooDeepError(maxDepth) : undefined,
    );
}
