import { createHash } from 'node:crypto';
import { isURL } from 'class-validator';
import { z } from 'zod';
import { UPSTREAM_URL_OPTIONS, URL_MAX_LENGTH } from '../../gateways/dto/gateway-create.dto';
import { type Gateway } from '../../gateways/gateway.entity';
import {
  DOCUMENT_MAX_BYTES,
  OpenApiDocumentError,
  parseDocument,
} from '../../upstream/openapi/openapi-document';
import {
  HTTP_METHODS,
  type OpenApiSelection,
  SELECTION_ENTRY_MAX,
  SELECTION_LIST_MAX,
} from '../../upstream/openapi/openapi-selection';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';

const list = (description: string) =>
  z
    .array(z.string().min(1).max(SELECTION_ENTRY_MAX))
    .max(SELECTION_LIST_MAX)
    .optional()
    .describe(description);

/** An `openapi` gateway's description and selection in the configuration document. */
export const gatewayOpenApiSchema = z
  .object({
    url: z
      .string()
      .max(URL_MAX_LENGTH)
      .optional()
      .describe('Where the OpenAPI 3.0/3.1 description is fetched at each sync; or `document`.'),
    document: z
      .string()
      .max(DOCUMENT_MAX_BYTES)
      .optional()
      .describe('The description itself (JSON or YAML text); or `url`.'),
    methods: z
      .array(z.enum(HTTP_METHODS))
      .max(HTTP_METHODS.length)
      .optional()
      .describe('Methods whose operations become tools; GET and HEAD by default (read-only).'),
    includeTags: list('Only operations with one of these tags.'),
    excludeTags: list('Never operations with one of these tags.'),
    includePaths: list('Only operations whose path matches one of these globs (* and **).'),
    excludePaths: list('Never operations whose path matches one of these globs.'),
  })
  .strict()
  .describe("transport openapi: the REST service's description, and which operations are tools.");

type OpenApiItem = z.output<typeof gatewayOpenApiSchema>;
type OpenApiColumns = Pick<Gateway, 'openapiUrl' | 'openapiDocument' | 'openapiSelection'>;

function invalid(message: string): ConfigDocumentException {
  return new ConfigDocumentException(ConfigDocumentErrorCode.Invalid, `${message}.`);
}

/** The columns an item asks for, checked by the REST API's rules; all null for other transports. */
export function openApiColumnsOf(
  item: { transport: string; openapi?: OpenApiItem },
  where: string,
): OpenApiColumns {
  const { openapi } = item;
  if (item.transport !== 'openapi') {
    if (openapi !== undefined) throw invalid(`${where}: openapi applies only to transport openapi`);
    return { openapiUrl: null, openapiDocument: null, openapiSelection: null };
  }
  if (openapi === undefined || (openapi.url === undefined) === (openapi.document === undefined))
    throw invalid(`${where}: transport openapi needs openapi.url or openapi.document, one of them`);
  const { url, document, ...selection } = openapi;
  if (url !== undefined && !isURL(url, UPSTREAM_URL_OPTIONS))
    throw invalid(`${where} has openapi.url '${url}', which is not an absolute http(s) URL`);
  if (document !== undefined) {
    try {
      parseDocument(document);
    } catch (error) {
      if (error instanceof OpenApiDocumentError) throw invalid(`${where}: ${error.message}`);
      throw error;
    }
  }
  const chosen: OpenApiSelection = Object.fromEntries(
    Object.entries(selection).filter(([, value]) => value !== undefined),
  );
  return {
    openapiUrl: url === undefined ? null : new URL(url).href,
    openapiDocument: document ?? null,
    openapiSelection: Object.keys(chosen).length === 0 ? null : chosen,
  };
}

/** What a change to the columns is shown as: the description by its digest, never whole. */
export function openApiShown(columns: OpenApiColumns): string {
  const digest =
    columns.openapiDocument === null
      ? null
      : `sha256:${createHash('sha256').update(columns.openapiDocument).digest('hex').slice(0, 16)}`;
  return JSON.stringify([columns.openapiUrl, digest, columns.openapiSelection]);
}

/** The `openapi` key of an exported gateway; absent for other transports. */
export function exportedOpenApi(gateway: Gateway): { openapi?: OpenApiItem } {
  if (gateway.transport !== 'openapi') return {};
  return {
    openapi: {
      ...(gateway.openapiUrl === null ? {} : { url: gateway.openapiUrl }),
      ...(gateway.openapiDocument === null ? {} : { document: gateway.openapiDocument }),
      ...(gateway.openapiSelection ?? {}),
    },
  };
}
