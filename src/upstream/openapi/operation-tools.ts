import { type Tool } from '@modelcontextprotocol/client';
import {
  type HttpMethod,
  HTTP_METHODS,
  type OpenApiSelection,
  selector,
} from './openapi-selection';
import { type ParameterStyle } from './parameter-style';
import { OpenApiDocumentError } from './openapi-document';
import { OperationRefused, type SchemaBounds, SchemaBuilder } from './schema-refs';
import { isJsonObject, type JsonObject } from '../../common/json-value';
import { pathProblem, reservedHeader } from './operation-confinement';
import { trimmedOf } from '../../common/untrusted-text';

/** One parameter of an operation, and the argument it is read from. */
export interface ParameterPlan {
  name: string;
  in: 'path' | 'query' | 'header';
  style: ParameterStyle;
  explode: boolean;
  /** The argument's name in the tool's input schema. */
  argument: string;
  required: boolean;
}

/** How a tool call becomes one HTTP request. */
export interface OperationPlan {
  tool: string;
  method: HttpMethod;
  /** The path template, as the document writes it (`/users/{id}`). */
  path: string;
  parameters: ParameterPlan[];
  body: { argument: string; contentType: string; required: boolean } | null;
}

/** What a description offers as tools: their definitions, and how each is called. */
export interface OperationTools {
  /** Listed as they are; a refused operation is its name and the reason (see refusalOf). */
  tools: (Tool | { name: string; refused: string })[];
  plans: Map<string, OperationPlan>;
}

export const TOOL_NAME_MAX = 64;
const DESCRIPTION_MAX = 4096;

/** A tool name from an operationId, or from the method and path where there is none. */
export function toolNameOf(operationId: unknown, method: HttpMethod, path: string): string {
  const source =
    typeof operationId === 'string' && operationId.trim() !== ''
      ? operationId
      : `${method.toLowerCase()}_${path}`;
  const name = source
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_+/g, '_');
  const trimmed = trimmedOf(name, '_.-').slice(0, TOOL_NAME_MAX);
  return trimmed === '' ? method.toLowerCase() : trimmed;
}

/** `name`, or `name_2`, `name_3`... : the first not yet taken. */
function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) {
    const suffix = `_${n}`;
    candidate = name.slice(0, TOOL_NAME_MAX - suffix.length) + suffix;
  }
  taken.add(candidate);
  return candidate;
}

/**
 * The operations the selection takes, in document order, as tools. An operation whose schemas
 * break a bound is listed as refused (the sync reports it); the others are unaffected. At most
 * `maxTools` operations are selected, else the whole list is refused.
 */
export function operationTools(
  document: JsonObject,
  selection: OpenApiSelection,
  bounds: SchemaBounds & { maxTools: number },
): OperationTools {
  const takes = selector(selection);
  const tools: OperationTools['tools'] = [];
  const plans = new Map<string, OperationPlan>();
  const taken = new Set<string>();
  const paths = isJsonObject(document.paths) ? document.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!isJsonObject(rawItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = rawItem[method.toLowerCase()];
      if (!isJsonObject(operation)) continue;
      const tags = Array.isArray(operation.tags)
        ? operation.tags.filter((tag): tag is string => typeof tag === 'string')
        : [];
      if (!takes(method, path, tags)) continue;
      if (tools.length >= bounds.maxTools)
        throw new OpenApiDocumentError(
          `the selection takes more than ${bounds.maxTools} operations; narrow it with methods, tags or paths`,
        );
      const name = unique(toolNameOf(operation.operationId, method, path), taken);
      const builder = new SchemaBuilder(document, bounds);
      try {
        const built = buildTool(builder, name, method, path, rawItem, operation);
        tools.push(built.tool);
        plans.set(name, built.plan);
      } catch (error) {
        if (!(error instanceof OperationRefused)) throw error;
        tools.push({ name, refused: `${method} ${path}: ${error.message}` });
      }
    }
  }
  return { tools, plans };
}

function buildTool(
  builder: SchemaBuilder,
  name: string,
  method: HttpMethod,
  path: string,
  item: JsonObject,
  operation: JsonObject,
): { tool: Tool; plan: OperationPlan } {
  const outside = pathProblem(path);
  if (outside) throw new OperationRefused(outside);
  const properties: JsonObject = {};
  const required: string[] = [];
  const parameters: ParameterPlan[] = [];
  for (const parameter of mergedParameters(builder, item, operation)) {
    const where = parameter.in;
    if (where !== 'path' && where !== 'query' && where !== 'header') continue;
    const paramName = String(parameter.name);
    if (where === 'header' && reservedHeader(paramName)) continue;
    const argument = Object.hasOwn(properties, paramName) ? `${where}_${paramName}` : paramName;
    if (Object.hasOwn(properties, argument))
      throw new OperationRefused(`two parameters are both named ${argument}`);
    const schema = parameterSchema(builder, parameter);
    const text = describe(parameter.description, undefined);
    properties[argument] =
      text && schema.description === undefined ? { ...schema, description: text } : schema;
    const isRequired = where === 'path' || parameter.required === true;
    if (isRequired) required.push(argument);
    const style = defaultStyle(where, parameter.style);
    parameters.push({
      name: paramName,
      in: where,
      style,
      explode: typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form',
      argument,
      required: isRequired,
    });
  }
  const body = requestBody(builder, operation, properties);
  if (body) {
    properties[body.plan.argument] = body.schema;
    if (body.plan.required) required.push(body.plan.argument);
  }
  const inputSchema = {
    type: 'object' as const,
    properties: properties as NonNullable<Tool['inputSchema']['properties']>,
    ...(required.length > 0 ? { required } : {}),
  };
  const outputSchema = successSchema(builder, operation);
  const description = describe(operation.summary, operation.description);
  const tool: Tool = {
    name,
    ...(typeof operation.summary === 'string' ? { title: operation.summary.slice(0, 200) } : {}),
    description: `${description ? `${description}\n\n` : ''}${method} ${path}`,
    inputSchema,
    ...(outputSchema ? { outputSchema: outputSchema } : {}),
    annotations: annotationsOf(method),
  };
  return { tool, plan: { tool: name, method, path, parameters, body: body?.plan ?? null } };
}

/** Path-level parameters, overridden by the operation's of the same name and place. */
function mergedParameters(builder: SchemaBuilder, item: JsonObject, operation: JsonObject) {
  const byKey = new Map<string, JsonObject>();
  for (const list of [item.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = builder.target(raw);
      if (typeof parameter.name !== 'string' || typeof parameter.in !== 'string') continue;
      byKey.set(`${parameter.in}\0${parameter.name}`, parameter);
    }
  }
  return [...byKey.values()];
}

function parameterSchema(builder: SchemaBuilder, parameter: JsonObject): JsonObject {
  if (parameter.schema !== undefined) return builder.schema(parameter.schema);
  // `content` instead of `schema`: one media type, whose schema describes the value.
  if (isJsonObject(parameter.content)) {
    const media = Object.values(parameter.content)[0];
    if (isJsonObject(media) && media.schema !== undefined) return builder.schema(media.schema);
  }
  return {};
}

function defaultStyle(where: ParameterPlan['in'], style: unknown): ParameterStyle {
  const allowed: Record<ParameterPlan['in'], readonly string[]> = {
    path: ['simple', 'label', 'matrix'],
    query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
    header: ['simple'],
  };
  if (style === undefined) return where === 'query' ? 'form' : 'simple';
  if (typeof style === 'string' && allowed[where].includes(style)) return style as ParameterStyle;
  throw new OperationRefused(
    `a ${where} parameter has style ${JSON.stringify(style)?.slice(0, 40)}, which Portico does not send`,
  );
}

/** The request body as one argument (`body`, or `request_body` when a parameter is `body`). */
function requestBody(
  builder: SchemaBuilder,
  operation: JsonObject,
  properties: JsonObject,
): { schema: JsonObject; plan: NonNullable<OperationPlan['body']> } | null {
  if (operation.requestBody === undefined) return null;
  const body = builder.target(operation.requestBody);
  const content = isJsonObject(body.content) ? body.content : {};
  const types = Object.keys(content);
  const contentType =
    types.find((type) => /^application\/(.+\+)?json\b/i.test(type)) ??
    types.find((type) => /^application\/x-www-form-urlencoded\b/i.test(type));
  if (contentType === undefined) {
    if (types.length === 0) return null;
    throw new OperationRefused(
      `its request body is ${types.slice(0, 3).join(', ')}; only JSON and form bodies are sent`,
    );
  }
  const media = content[contentType];
  const schema =
    isJsonObject(media) && media.schema !== undefined ? builder.schema(media.schema) : {};
  const described = describe(body.description, undefined);
  const argument = Object.hasOwn(properties, 'body') ? 'request_body' : 'body';
  return {
    schema:
      described && schema.description === undefined
        ? { ...schema, description: described }
        : schema,
    plan: { argument, contentType, required: body.required === true },
  };
}

/** The schema of the first success response with a JSON object body; none if it breaks a bound. */
function successSchema(builder: SchemaBuilder, operation: JsonObject): JsonObject | null {
  const responses = isJsonObject(operation.responses) ? operation.responses : {};
  const status = ['200', '201', '202', '203', '2XX', '2xx'].find((code) => code in responses);
  if (status === undefined) return null;
  try {
    const response = builder.target(responses[status]);
    const content = isJsonObject(response.content) ? response.content : {};
    const type = Object.keys(content).find((key) => /^application\/(.+\+)?json\b/i.test(key));
    const media = type === undefined ? undefined : content[type];
    if (!isJsonObject(media) || media.schema === undefined) return null;
    const schema = builder.schema(media.schema);
    const isObjectSchema =
      schema.type === 'object' || (schema.type === undefined && isJsonObject(schema.properties));
    return isObjectSchema ? { ...schema, type: 'object' } : null;
  } catch (error) {
    // An output schema is optional: one that breaks a bound is left out, the tool kept.
    if (error instanceof OperationRefused) return null;
    throw error;
  }
}

function describe(summary: unknown, description: unknown): string {
  const parts = [summary, description].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  return parts.join('\n\n').slice(0, DESCRIPTION_MAX);
}

function annotationsOf(method: HttpMethod): NonNullable<Tool['annotations']> {
  switch (method) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
    case 'TRACE':
      return { readOnlyHint: true, openWorldHint: true };
    case 'PUT':
    case 'DELETE':
      return {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: true,
      };
    case 'POST':
    case 'PATCH':
      return {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      };
  }
}
