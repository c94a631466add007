import { type OperationPlan } from './operation-tools';
import { ArgumentError, headerValue, pathValue, queryPairs } from './parameter-style';

/** One HTTP request, ready for the base URL's origin. */
export interface BuiltRequest {
  method: OperationPlan['method'];
  /** The base URL's path, the operation's path filled in, and the query string: escaped. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * The request a tool call makes: each argument serialised as its parameter says, the body as JSON
 * (or a form). An argument no parameter reads is refused, as is a missing required one.
 */
export function buildRequest(
  plan: OperationPlan,
  basePath: string,
  args: Record<string, unknown>,
): BuiltRequest {
  const known = new Set(plan.parameters.map((parameter) => parameter.argument));
  if (plan.body) known.add(plan.body.argument);
  const unknown = Object.keys(args).filter((key) => !known.has(key));
  if (unknown.length > 0)
    throw new ArgumentError(
      `unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 5).join(', ')}`,
    );
  let path = plan.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  for (const parameter of plan.parameters) {
    // Own properties only: an optional `constructor` left out is not Object's.
    const value = Object.hasOwn(args, parameter.argument) ? args[parameter.argument] : undefined;
    if (value === undefined) {
      if (parameter.required) throw new ArgumentError(`${parameter.argument} is required`);
      continue;
    }
    switch (parameter.in) {
      case 'path': {
        const text = pathValue(parameter.name, value, parameter.style as never, parameter.explode);
        path = path.split(`{${parameter.name}}`).join(text);
        break;
      }
      case 'query':
        query.push(
          ...queryPairs(parameter.name, value, parameter.style as never, parameter.explode),
        );
        break;
      case 'header':
        headers[parameter.name.toLowerCase()] = headerValue(
          parameter.name,
          value,
          parameter.explode,
        );
    }
  }
  if (/\{[^}]*\}/.test(path))
    throw new ArgumentError(`the path ${plan.path} has a parameter the operation does not define`);
  let body: string | null = null;
  if (plan.body) {
    const value = Object.hasOwn(args, plan.body.argument) ? args[plan.body.argument] : undefined;
    if (value === undefined && plan.body.required)
      throw new ArgumentError(`${plan.body.argument} is required`);
    if (value !== undefined) {
      headers['content-type'] = plan.body.contentType;
      body = /x-www-form-urlencoded/i.test(plan.body.contentType)
        ? formBody(plan.body.argument, value)
        : JSON.stringify(value);
    }
  }
  const base = basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
  return {
    method: plan.method,
    path: base + path + (query.length > 0 ? `?${query.join('&')}` : ''),
    headers,
    body,
  };
}

function formBody(argument: string, value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ArgumentError(`${argument}: a form body takes an object`);
  return Object.entries(value)
    .flatMap(([key, item]) => queryPairs(key, item, 'form', true))
    .join('&');
}
