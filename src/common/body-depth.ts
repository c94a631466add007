import { type NextFunction, type Request, type Response } from 'express';

/** Deeper than any real request nests; deep enough input would overflow recursive validation. */
export const MAX_BODY_DEPTH = 64;

/** What the body parsers' own errors look like, so that the problem filter maps it alike. */
export class BodyTooDeepError extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';

  constructor() {
    super(`The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
  }
}

/** How deep a parsed JSON value nests, counted without recursion, stopping past `limit`. */
export function nestingDepth(value: unknown, limit = MAX_BODY_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Refuses parsed bodies nested deeper than MAX_BODY_DEPTH before anything walks them. */
export function bodyDepthLimit(request: Request, _response: Response, next: NextFunction): void {
  next(nestingDepth(request.body) > MAX_BODY_DEPTH ? new BodyTooDeepError() : undefined);
}
