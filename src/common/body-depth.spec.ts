import { type Request, type Response } from 'express';
import { bodyDepthLimit, BodyTooDeepError } from './body-depth';

function deepArray(depth: number): unknown[] {
  let deep: unknown[] = [];
  for (let i = 1; i < depth; i++) deep = [deep];
  return deep;
}

function verdict(body: unknown, maxDepth: number): unknown {
  let passed: unknown = 'not called';
  bodyDepthLimit(maxDepth)({ body } as Request, {} as Response, (error?: unknown) => {
    passed = error;
  });
  return passed;
}

describe('bodyDepthLimit', () => {
  it('passes a body nested up to the limit and refuses one past it, naming the limit', () => {
    expect(verdict(deepArray(10), 10)).toBeUndefined();
    expect(verdict(undefined, 10)).toBeUndefined();
    const refused = verdict({ deep: deepArray(100_000) }, 10);
    expect(refused).toBeInstanceOf(BodyTooDeepError);
    expect((refused as BodyTooDeepError).message).toBe(
      'The request body is nested more than 10 levels deep, past the limit (JSON_MAX_DEPTH).',
    );
  });
});
