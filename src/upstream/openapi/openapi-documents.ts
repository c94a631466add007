import { createHash } from 'node:crypto';
import { type Dispatcher } from 'undici';
import { readBounded } from '../../common/remote-body';
import { UpstreamFailure } from '../upstream-error';
import { OpenApiDocumentError, DOCUMENT_MAX_BYTES } from './openapi-document';
import { buildModelApart, type OpenApiModel } from './openapi-model';
import { type OpenApiSelection } from './openapi-selection';

/** Where a gateway's description comes from, and which of its operations become tools. */
export interface OpenApiSource {
  /** Fetched at each sync; null when the description is stored on the gateway. */
  documentUrl: string | null;
  /** The description itself, when it was given rather than a URL. */
  document: string | null;
  selection: OpenApiSelection;
}

const FETCH_REDIRECTS = 3;

/** Where an `openapi` gateway's description comes from; null for other transports. */
export function openApiSourceOf(gateway: {
  transport: string;
  openapiUrl?: string | null;
  openapiDocument?: string | null;
  openapiSelection?: OpenApiSelection | null;
}): OpenApiSource | null {
  if (gateway.transport !== 'openapi') return null;
  return {
    documentUrl: gateway.openapiUrl ?? null,
    document: gateway.openapiDocument ?? null,
    selection: gateway.openapiSelection ?? {},
  };
}

/** What fetching the description needs. */
export interface DocumentFetch {
  dispatcher(url: URL): Dispatcher;
  /** The gateway's credentials, sent only to the base URL's origin. */
  headers: Record<string, string>;
  baseUrl: URL;
  timeoutMs: number;
}

/**
 * The descriptions of OpenAPI gateways, read as tools and cached per gateway by the hash of the
 * description and the selection: a sync reads the description again (the URL fetched each time),
 * but parses, validates and builds tools only when it changed. Validating GitHub's description
 * takes seconds; doing it once per version keeps syncs and calls cheap.
 */
export class OpenApiDocuments {
  private readonly cache = new Map<string, { key: string; model: OpenApiModel }>();

  async model(
    gatewayId: string,
    source: OpenApiSource,
    fresh: boolean,
    fetch: DocumentFetch,
    maxDepth: number,
  ): Promise<OpenApiModel> {
    const cached = this.cache.get(gatewayId);
    const sourceKey = JSON.stringify([source.documentUrl, source.selection]);
    if (!fresh && cached?.key.startsWith(sourceKey) && source.documentUrl !== null)
      return cached.model;
    const text = source.document ?? (await fetchDocument(source.documentUrl!, fetch));
    const key = sourceKey + createHash('sha256').update(text).digest('hex');
    if (cached?.key === key) return cached.model;
    const model = await buildModelApart(text, source.selection, maxDepth).catch(
      (error: unknown) => {
        if (error instanceof OpenApiDocumentError)
          throw new UpstreamFailure('protocol', `the OpenAPI description: ${error.message}`);
        throw error;
      },
    );
    this.cache.set(gatewayId, { key, model });
    return model;
  }

  forget(gatewayId: string): void {
    this.cache.delete(gatewayId);
  }
}

/**
 * GET the description, bounded in size and time. A redirect is followed only within the same
 * origin (at most three); the gateway's credentials go only to the base URL's origin.
 */
async function fetchDocument(documentUrl: string, fetch: DocumentFetch): Promise<string> {
  let url = new URL(documentUrl);
  const origin = url.origin;
  const signal = AbortSignal.timeout(fetch.timeoutMs);
  for (let hop = 0; ; hop++) {
    let response: Dispatcher.ResponseData;
    try {
      response = await fetch.dispatcher(url).request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'GET',
        // Rare and large: its own connection, never one the server may be closing as idle.
        reset: true,
        headers: {
          accept: 'application/json, application/yaml;q=0.9, */*;q=0.5',
          ...(url.origin === fetch.baseUrl.origin ? fetch.headers : {}),
        },
        signal,
      });
    } catch (error) {
      throw new UpstreamFailure(
        signal.aborted ? 'timeout' : 'unreachable',
        `the OpenAPI description at ${url.href} could not be fetched: ${(error as Error).message}`,
      );
    }
    const { statusCode, headers } = response;
    if (statusCode >= 300 && statusCode < 400 && headers.location) {
      await response.body.dump();
      const next = new URL(String(headers.location), url);
      if (next.origin !== origin || hop >= FETCH_REDIRECTS)
        throw new UpstreamFailure(
          'protocol',
          `the OpenAPI description at ${documentUrl} redirects to ${next.origin}; Portico follows redirects only within one origin, at most ${FETCH_REDIRECTS}`,
        );
      url = next;
      continue;
    }
    const { text, truncated } = await readBounded(response.body, DOCUMENT_MAX_BYTES);
    if (statusCode !== 200)
      throw new UpstreamFailure(
        'http',
        `the OpenAPI description at ${url.href} answered HTTP ${statusCode}`,
        statusCode,
      );
    if (truncated)
      throw new UpstreamFailure(
        'protocol',
        `the OpenAPI description at ${url.href} is larger than ${DOCUMENT_MAX_BYTES} bytes`,
      );
    return text;
  }
}
