import { isJsonObject } from '../common/json-value';
import { isStorableText } from '../common/untrusted-text';

/**
 * The shape of a registry entry (`server.json`, schema 2025-12-11) as far as Portico reads it: a
 * shape check, not the full JSON Schema. What is checked is what an import relies on; the rest of
 * the entry is kept as it came, bounded by the size of the response it came in.
 */

export const REMOTE_TYPES = ['streamable-http', 'sse'] as const;
export type RemoteType = (typeof REMOTE_TYPES)[number];

export interface KeyValueInput {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string;
  value?: string;
  choices?: string[];
}

export interface UrlVariable {
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string;
  choices?: string[];
}

export interface Remote {
  type: RemoteType;
  url: string;
  headers?: KeyValueInput[];
  variables?: Record<string, UrlVariable>;
}

export interface Argument {
  type: 'positional' | 'named';
  name?: string;
  value?: string;
  valueHint?: string;
  default?: string;
  isRequired?: boolean;
}

export interface Package {
  registryType: string;
  identifier: string;
  version?: string;
  registryBaseUrl?: string;
  runtimeHint?: string;
  runtimeArguments?: Argument[];
  packageArguments?: Argument[];
  environmentVariables?: KeyValueInput[];
  transport: { type: string; url?: string };
  fileSha256?: string;
}

export interface ServerJson {
  name: string;
  title?: string;
  description: string;
  version: string;
  websiteUrl?: string;
  repository?: { url?: string; source?: string; subfolder?: string };
  packages?: Package[];
  remotes?: Remote[];
  [key: string]: unknown;
}

/** The registry's status of one entry (`_meta["io.modelcontextprotocol.registry/official"]`). */
export interface OfficialMeta {
  status?: string;
  publishedAt?: string;
  updatedAt?: string;
  isLatest?: boolean;
}

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** One entry of a v0.1 response: the server.json and the registry's own metadata. */
export interface ServerResponse {
  server: ServerJson;
  _meta?: Record<string, unknown>;
}

/** Why an entry does not have the shape of server.json, with where. */
export class ServerJsonProblem extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
    this.name = 'ServerJsonProblem';
  }
}

/** `namespace/name`, as the schema's pattern has it. */
const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const DESCRIPTION_MAX = 100;
const NAME_MAX = 200;
const VERSION_MAX = 255;
const LIST_MAX = 32;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const VARIABLE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function text(value: unknown, path: string, max: number, required = true): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') throw new ServerJsonProblem(path, 'must be a string');
  if (required && value.length === 0) throw new ServerJsonProblem(path, 'must not be empty');
  if (value.length > max) throw new ServerJsonProblem(path, `must be at most ${max} characters`);
  if (!isStorableText(value))
    throw new ServerJsonProblem(path, 'must not contain NUL characters or unpaired surrogates');
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ServerJsonProblem(path, 'must be an array');
  if (value.length > LIST_MAX)
    throw new ServerJsonProblem(path, `must have at most ${LIST_MAX} items`);
  return value;
}

function inputs(value: unknown, path: string, nameRule: RegExp): KeyValueInput[] {
  return list(value, path).map((item, index) => {
    const at = `${path}[${index}]`;
    if (!isJsonObject(item)) throw new ServerJsonProblem(at, 'must be an object');
    const name = text(item.name, `${at}.name`, 128)!;
    if (!nameRule.test(name))
      throw new ServerJsonProblem(`${at}.name`, `is not a valid name: '${name}'`);
    for (const flag of ['isRequired', 'isSecret'] as const)
      if (item[flag] !== undefined && typeof item[flag] !== 'boolean')
        throw new ServerJsonProblem(`${at}.${flag}`, 'must be a boolean');
    for (const field of ['description', 'default', 'value'] as const)
      text(item[field], `${at}.${field}`, 4096, false);
    return item as unknown as KeyValueInput;
  });
}

function remote(value: unknown, path: string): Remote {
  if (!isJsonObject(value)) throw new ServerJsonProblem(path, 'must be an object');
  if (!REMOTE_TYPES.includes(value.type as RemoteType))
    throw new ServerJsonProblem(`${path}.type`, "must be 'streamable-http' or 'sse'");
  text(value.url, `${path}.url`, 2048);
  inputs(value.headers, `${path}.headers`, HEADER_NAME);
  if (value.variables !== undefined) {
    if (!isJsonObject(value.variables))
      throw new ServerJsonProblem(`${path}.variables`, 'must be an object');
    const names = Object.keys(value.variables);
    if (names.length > LIST_MAX)
      throw new ServerJsonProblem(`${path}.variables`, `must have at most ${LIST_MAX} entries`);
    for (const name of names) {
      if (!VARIABLE_NAME.test(name))
        throw new ServerJsonProblem(`${path}.variables`, `has an invalid name '${name}'`);
      if (!isJsonObject(value.variables[name]))
        throw new ServerJsonProblem(`${path}.variables.${name}`, 'must be an object');
    }
  }
  return value as unknown as Remote;
}

function argumentsOf(value: unknown, path: string): void {
  list(value, path).forEach((item, index) => {
    const at = `${path}[${index}]`;
    if (!isJsonObject(item)) throw new ServerJsonProblem(at, 'must be an object');
    if (item.type !== 'positional' && item.type !== 'named')
      throw new ServerJsonProblem(`${at}.type`, "must be 'positional' or 'named'");
    for (const field of ['name', 'value', 'valueHint', 'default'] as const)
      text(item[field], `${at}.${field}`, 4096, false);
  });
}

function packageOf(value: unknown, path: string): Package {
  if (!isJsonObject(value)) throw new ServerJsonProblem(path, 'must be an object');
  text(value.registryType, `${path}.registryType`, 32);
  text(value.identifier, `${path}.identifier`, 1024);
  const version = text(value.version, `${path}.version`, VERSION_MAX, false);
  if (version === 'latest')
    throw new ServerJsonProblem(`${path}.version`, "must be an exact version, not 'latest'");
  text(value.runtimeHint, `${path}.runtimeHint`, 64, false);
  argumentsOf(value.runtimeArguments, `${path}.runtimeArguments`);
  argumentsOf(value.packageArguments, `${path}.packageArguments`);
  inputs(value.environmentVariables, `${path}.environmentVariables`, ENV_NAME);
  if (!isJsonObject(value.transport))
    throw new ServerJsonProblem(`${path}.transport`, 'must be an object');
  text(value.transport.type, `${path}.transport.type`, 32);
  return value as unknown as Package;
}

/** The entry, if it has the shape of server.json 2025-12-11; else a ServerJsonProblem. */
export function checkServerJson(value: unknown, path = 'server'): ServerJson {
  if (!isJsonObject(value)) throw new ServerJsonProblem(path, 'must be an object');
  const name = text(value.name, `${path}.name`, NAME_MAX)!;
  if (!SERVER_NAME.test(name))
    throw new ServerJsonProblem(`${path}.name`, `must be 'namespace/name', not '${name}'`);
  text(value.description, `${path}.description`, DESCRIPTION_MAX);
  const version = text(value.version, `${path}.version`, VERSION_MAX)!;
  if (version === 'latest')
    throw new ServerJsonProblem(`${path}.version`, "must be an exact version, not 'latest'");
  text(value.title, `${path}.title`, 100, false);
  list(value.packages, `${path}.packages`).forEach((item, index) =>
    packageOf(item, `${path}.packages[${index}]`),
  );
  list(value.remotes, `${path}.remotes`).forEach((item, index) =>
    remote(item, `${path}.remotes[${index}]`),
  );
  return value as ServerJson;
}

/** One `{ server, _meta }` item of a v0.1 answer. */
export function checkServerResponse(value: unknown, path: string): ServerResponse {
  if (!isJsonObject(value)) throw new ServerJsonProblem(path, 'must be an object');
  const server = checkServerJson(value.server, `${path}.server`);
  if (value._meta !== undefined && !isJsonObject(value._meta))
    throw new ServerJsonProblem(`${path}._meta`, 'must be an object');
  return { server, ...(value._meta === undefined ? {} : { _meta: value._meta }) };
}
