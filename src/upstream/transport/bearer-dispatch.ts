import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { type BearerSource } from './channel';

/**
 * One HTTP request to an OAuth upstream, sent with its bearer token. A 401 means the token went
 * bad before its time (revoked, or the upstream's clock): it is refreshed once and the request
 * sent again. A 403 that asks for more scope needs a new authorization, and is thrown as the
 * bearer says.
 */
export async function sentWithBearer(
  bearer: BearerSource,
  send: (token: string) => Promise<Dispatcher.ResponseData>,
): Promise<Dispatcher.ResponseData> {
  const token = await bearer.token();
  let response = await send(token);
  if (response.statusCode === 401) {
    await response.body.dump();
    response = await send(await bearer.token(token));
  }
  const wanted = response.statusCode === 403 ? insufficientScope(response) : null;
  if (!wanted) return response;
  await response.body.dump();
  throw await bearer.tooNarrow(wanted.scope);
}

/** A challenge with `error="insufficient_scope"`, and the scope it asks for. */
function insufficientScope(response: Dispatcher.ResponseData): { scope?: string } | null {
  const header = response.headers['www-authenticate'];
  const challenge = Array.isArray(header) ? header.join(', ') : header;
  if (!challenge) return null;
  // Read as the SDK's auth() reads challenges, so that both agree on what was asked.
  const { error, scope } = extractWWWAuthenticateParams(
    new Response(null, { headers: { 'www-authenticate': challenge } }),
  );
  if (error !== 'insufficient_scope') return null;
  return scope === undefined ? {} : { scope };
}
