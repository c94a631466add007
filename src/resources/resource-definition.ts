import { createHash } from 'node:crypto';
import { optionalObject, optionalText, unstorableJson } from '../common/untrusted-text';
import { isJsonObject, type JsonObject } from '../common/json-value';
import { canonicalJson } from '../common/canonical-json';
import { refusalOf } from '../upstream/transport/message-bounds';
import { DESCRIPTION_LIMIT, TITLE_LIMIT } from '../tools/tool-definition';

/** The longest URI or URI template stored. */
export const URI_LIMIT = 4096;
const NAME_LIMIT = 256;
const MIME_TYPE_LIMIT = 256;
/** Annotations and `_meta` together, as JSON; larger entries are refused. */
const METADATA_BYTES_LIMIT = 64 * 1024;

/** What a resource and a resource template share, as Portico stores them after admission. */
export interface ResourceDefinitionBase {
  name: string;
  title: string | null;
  description: string;
  mimeType: string | null;
  annotations: JsonObject | null;
  meta: JsonObject | null;
}

export interface ResourceDefinition extends ResourceDefinitionBase {
  uri: string;
  size: number | null;
}

export interface ResourceTemplateDefinition extends ResourceDefinitionBase {
  uriTemplate: string;
}

export type Admission<T> =
  | { ok: true; key: string; definition: T; warnings: string[] }
  | { ok: false; key: string; reason: string };

/** Checks one upstream resource, which is untrusted input. */
export function admitResource(raw: unknown): Admission<ResourceDefinition> {
  const admitted = admitBase(raw, 'uri');
  if (!admitted.ok) return admitted;
  const { key, base, warnings } = admitted;
  const size = (raw as JsonObject).size;
  const validSize = typeof size === 'number' && Number.isSafeInteger(size) && size >= 0;
  if (size !== undefined && size !== null && !validSize)
    warnings.push('size is not a non-negative integer and was dropped');
  return {
    ok: true,
    key,
    definition: { ...base, uri: key, size: validSize ? size : null },
    warnings,
  };
}

/** Checks one upstream resource template, which is untrusted input. */
export function admitResourceTemplate(raw: unknown): Admission<ResourceTemplateDefinition> {
  const admitted = admitBase(raw, 'uriTemplate');
  if (!admitted.ok) return admitted;
  const { key, base, warnings } = admitted;
  return { ok: true, key, definition: { ...base, uriTemplate: key }, warnings };
}

export function resourceContentHash(definition: ResourceDefinition | ResourceTemplateDefinition) {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

function admitBase(
  raw: unknown,
  keyMember: 'uri' | 'uriTemplate',
):
  | { ok: true; key: string; base: ResourceDefinitionBase; warnings: string[] }
  | { ok: false; key: string; reason: string } {
  if (!isJsonObject(raw))
    return { ok: false, key: String(raw), reason: 'the entry is not an object' };
  const key = raw[keyMember];
  if (typeof key !== 'string' || key === '')
    return { ok: false, key: String(key), reason: `${keyMember} is not a non-empty string` };
  if (key.length > URI_LIMIT)
    return {
      ok: false,
      key: key.slice(0, 80),
      reason: `${keyMember} is over ${URI_LIMIT} characters`,
    };
  if (hasSpaceOrControl(key) || unstorableJson([key]))
    return { ok: false, key, reason: `${keyMember} contains spaces or control characters` };
  const refused = refusalOf(raw);
  if (refused !== null) return { ok: false, key, reason: refused };
  if (typeof raw.name !== 'string' || raw.name === '')
    return { ok: false, key, reason: 'the name is not a non-empty string' };
  const warnings: string[] = [];
  const annotations = optionalObject('annotations', raw.annotations, warnings);
  const meta = optionalObject('_meta', raw._meta, warnings);
  const unstorable = unstorableJson([annotations, meta]);
  if (unstorable) return { ok: false, key, reason: unstorable };
  const size = Buffer.byteLength(canonicalJson([annotations, meta]));
  if (size > METADATA_BYTES_LIMIT)
    return {
      ok: false,
      key,
      reason: `its metadata is ${size} bytes, over ${METADATA_BYTES_LIMIT}`,
    };
  return {
    ok: true,
    key,
    base: {
      name: optionalText('name', raw.name, NAME_LIMIT, warnings) ?? key,
      title: optionalText('title', raw.title, TITLE_LIMIT, warnings),
      description: optionalText('description', raw.description, DESCRIPTION_LIMIT, warnings) ?? '',
      mimeType: optionalText('mimeType', raw.mimeType, MIME_TYPE_LIMIT, warnings),
      annotations,
      meta,
    },
    warnings,
  };
}

function hasSpaceOrControl(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code <= 0x20 || code === 0x7f || /\s/.test(char)) return true;
  }
  return false;
}
