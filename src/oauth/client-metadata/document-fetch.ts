import { lookup as dnsLookup } from 'node:dns';
import { type IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { bareAddress, isFetchableAddress } from './special-use-address';

export interface DocumentFetchOptions {
  /** The most bytes read; a longer document is refused, not cut. */
  maxBytes: number;
  /** For the whole exchange: connecting, the headers and the body. */
  timeoutMs: number;
  /** Whether loopback addresses may be fetched (a Portico on loopback, in development and tests). */
  allowLoopback: boolean;
  /** Certificates trusted instead of the system's; for tests with their own authority. */
  ca?: string;
}

export interface FetchedDocument {
  text: string;
  headers: IncomingHttpHeaders;
}

/** Why a document could not be fetched, in words for the client's developer. */
export class DocumentFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentFetchError';
  }
}

/** Messages say what went wrong with "the document <url> ...". */
const SPECIAL_USE =
  'is on a special-use address (private, loopback, link-local, ...), which Portico does not fetch';

/**
 * A host name's addresses, refused when any of them is special-use (RFC 6890): the connection goes
 * to an address checked here, so that a second answer of the DNS cannot slip past the check.
 */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) {
        callback(
          new DocumentFetchError(`could not be fetched: ${hostname} did not resolve`),
          '',
          0,
        );
        return;
      }
      const list = addresses;
      const first = list[0];
      if (!first || list.some((entry) => !isFetchableAddress(entry.address, allowLoopback))) {
        callback(new DocumentFetchError(SPECIAL_USE), '', 0);
        return;
      }
      if (options.all) callback(null, list);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * GET a client's metadata document over https, bounded: only from globally reachable addresses
 * (SSRF, draft §8.6), no redirect followed (draft §5), 200 only, at most `maxBytes` (draft §8.7),
 * within `timeoutMs`, UTF-8. Every failure is a DocumentFetchError.
 */
export function fetchDocument(url: URL, options: DocumentFetchOptions): Promise<FetchedDocument> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'https:') {
      reject(new DocumentFetchError('must be fetched over https'));
      return;
    }
    const host = bareAddress(url.hostname);
    // An IP address in the URL is connected to without a lookup: check it here.
    if (isIP(host) !== 0 && !isFetchableAddress(host, options.allowLoopback)) {
      reject(new DocumentFetchError(SPECIAL_USE));
      return;
    }
    let settled = false;
    const settle = (error: Error | null, document?: FetchedDocument) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        outgoing.destroy();
        reject(
          error instanceof DocumentFetchError ? error : new DocumentFetchError(describe(error)),
        );
      } else {
        resolve(document!);
      }
    };
    const outgoing = request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: guardedLookup(options.allowLoopback),
        // A fresh connection each time: pooled ones would skip the checked lookup.
        agent: false,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          settle(
            new DocumentFetchError(
              status >= 300 && status < 400
                ? `answered ${status}, a redirect, which is not followed: serve the document at its client_id`
                : `answered ${status}, not 200`,
            ),
          );
          return;
        }
        const declared = Number(response.headers['content-length']);
        if (declared > options.maxBytes) {
          response.resume();
          settle(tooLarge(options.maxBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > options.maxBytes) settle(tooLarge(options.maxBytes));
          else chunks.push(chunk);
        });
        response.on('error', (error) => settle(error));
        response.on('end', () => {
          try {
            const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
            settle(null, { text, headers: response.headers });
          } catch {
            settle(new DocumentFetchError('is not UTF-8 text'));
          }
        });
        // After 'end' this changes nothing; before it, the document was cut short.
        response.on('close', () =>
          settle(new DocumentFetchError('was cut short: the connection closed before its end')),
        );
      },
    );
    const timer = setTimeout(
      () => settle(new DocumentFetchError(`did not answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    outgoing.on('error', (error) => settle(error));
    outgoing.end();
  });
}

function tooLarge(maxBytes: number): DocumentFetchError {
  return new DocumentFetchError(`is larger than ${maxBytes} bytes`);
}

/** A connection or TLS failure, without the stack: its code says enough. */
function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined
    ? `could not be fetched: ${error.message}`
    : `could not be fetched (${code})`;
}
