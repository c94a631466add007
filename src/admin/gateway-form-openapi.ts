import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { type FormBody, formField, formLines } from './form-body';

/** What the gateway form shows of an openapi gateway: the description's URL, the selection. */
export interface OpenApiFormValues {
  openapiUrl: string;
  /** Space-separated. */
  openapiMethods: string;
  /** One a line each. */
  openapiIncludeTags: string;
  openapiExcludeTags: string;
  openapiIncludePaths: string;
  openapiExcludePaths: string;
}

/** The selection's lists, as the form names them. */
const OPENAPI_LISTS = {
  includeTags: 'openapiIncludeTags',
  excludeTags: 'openapiExcludeTags',
  includePaths: 'openapiIncludePaths',
  excludePaths: 'openapiExcludePaths',
} as const;

export function openApiFormValues(body: FormBody): OpenApiFormValues {
  return {
    openapiUrl: formField(body, 'openapiUrl'),
    openapiMethods: formField(body, 'openapiMethods') || 'GET HEAD',
    openapiIncludeTags: formField(body, 'openapiIncludeTags'),
    openapiExcludeTags: formField(body, 'openapiExcludeTags'),
    openapiIncludePaths: formField(body, 'openapiIncludePaths'),
    openapiExcludePaths: formField(body, 'openapiExcludePaths'),
  };
}

export function openApiFormOf(gateway: GatewayResponseDto): OpenApiFormValues {
  const selection = gateway.openapiSelection;
  return {
    openapiUrl: gateway.openapiUrl ?? '',
    openapiMethods: (selection?.methods ?? ['GET', 'HEAD']).join(' '),
    openapiIncludeTags: (selection?.includeTags ?? []).join('\n'),
    openapiExcludeTags: (selection?.excludeTags ?? []).join('\n'),
    openapiIncludePaths: (selection?.includePaths ?? []).join('\n'),
    openapiExcludePaths: (selection?.excludePaths ?? []).join('\n'),
  };
}

/**
 * The openapi fields of the request body: the description's URL or its text (on the edit form,
 * neither keeps the stored one), and the selection; the API then applies its rules.
 */
export function openApiInput(body: FormBody, input: Record<string, unknown>): void {
  const url = formField(body, 'openapiUrl').trim();
  const document = formField(body, 'openapiDocument');
  if (url !== '') input.openapiUrl = url;
  if (document.trim() !== '') input.openapiDocument = document;
  const selection: Record<string, string[]> = {
    methods: formField(body, 'openapiMethods')
      .split(/[\s,]+/)
      .filter((method) => method !== '')
      .map((method) => method.toUpperCase()),
  };
  for (const [key, field] of Object.entries(OPENAPI_LISTS)) selection[key] = formLines(body, field);
  input.openapiSelection = selection;
}
