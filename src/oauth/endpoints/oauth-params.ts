import { type Request } from 'express';
import { OAuthError, OAuthErrorCode } from './oauth-error';

/** A request's parameters: the form (or JSON) body of a POST, the query string of a GET. */
export type OAuthParams = Readonly<Record<string, unknown>>;

export function paramsOf(request: Request): OAuthParams {
  const source: unknown = request.method === 'POST' ? request.body : request.query;
  return typeof source === 'object' && source !== null ? (source as OAuthParams) : {};
}

/**
 * One parameter: absent, or a single string. Sent twice (the query parser makes that an array) or
 * as anything but a string, it is refused: RFC 6749 §3.1 allows every parameter at most once.
 */
export function optionalParam(params: OAuthParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new OAuthError(OAuthErrorCode.InvalidRequest, `${name} must be given once, as a string`);
  return value;
}

export function requiredParam(params: OAuthParams, name: string): string {
  const value = optionalParam(params, name);
  if (value === undefined || value === '')
    throw new OAuthError(OAuthErrorCode.InvalidRequest, `${name} is required`);
  return value;
}

/** An absolute URL parameter (redirect_uri, resource), or undefined when absent. */
export function urlParam(params: OAuthParams, name: string): string | undefined {
  const value = optionalParam(params, name);
  if (value !== undefined && !URL.canParse(value))
    throw new OAuthError(OAuthErrorCode.InvalidRequest, `${name} must be a valid URL`);
  return value;
}
