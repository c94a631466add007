import { type Readable } from 'node:stream';
import { readChunks } from './read-body';

/**
 * A body read from another server (an upstream, an identity provider, a token or embeddings
 * service) to at most `maxBytes`: past that the stream is dropped and what was read is kept,
 * marked truncated, so that a huge or endless answer costs no more than the limit.
 */
export async function readBounded(
  body: Readable,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const truncated = await readChunks(body, (chunk) => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(buffer.subarray(0, Math.max(0, maxBytes - bytes)));
    bytes += buffer.length;
    return bytes > maxBytes;
  });
  if (truncated) body.destroy();
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}

/** What reading a capped body fails with once it passes its limit. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes, past the limit`);
  }
}

/** Statuses whose Response can have no body, so there is nothing to cap. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch Response whose body fails with BodyTooLarge once more than `maxBytes` have come (the
 * connection is then dropped): `json()` and `text()` of code Portico does not own, the SDK's
 * OAuth client and jose among them, hold no more than the limit.
 */
export function cappedResponse(response: Response, maxBytes: number): Response {
  let received = 0;
  return checkedResponse(response, (chunk) => {
    received += chunk.byteLength;
    return received > maxBytes ? new BodyTooLarge(maxBytes) : null;
  });
}

/**
 * A fetch Response whose body passes each chunk through `check`, and fails with the error it
 * returns (the connection is then dropped), before whoever reads the body has it.
 */
export function checkedResponse(
  response: Response,
  check: (chunk: Uint8Array) => Error | null,
): Response {
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const error = check(chunk);
        if (error) controller.error(error);
        else controller.enqueue(chunk);
      },
    }),
  );
  const checked = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Where a redirect points is read against the URL that answered.
  Object.defineProperties(checked, {
    url: { value: response.url },
    redirected: { value: response.redirected },
  });
  return checked;
}

/** `fetch` whose every answer is a cappedResponse of `maxBytes`. */
export function boundedFetch(
  maxBytes: number,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => cappedResponse(await fetch(input, init), maxBytes);
}
