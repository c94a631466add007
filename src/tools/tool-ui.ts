import type { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server' with {
  'resolution-mode': 'import',
};
import { type ToolAppConfig } from './tool-app-config';
import { isJsonObject, type JsonObject } from '../common/json-value';

// ext-apps is an ES module, which this CommonJS build cannot load at run time; typing these copies
// as its constants makes the compiler fail should they ever differ.
/** The MCP Apps extension, as named in `extensions` capabilities. */
export const UI_EXTENSION: typeof EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** MIME type of MCP Apps HTML resources. */
export const UI_RESOURCE_MIME_TYPE: typeof RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';
/** The deprecated flat form of `_meta.ui.resourceUri`, still read by some hosts. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

const PREFAB_RESOURCE_URI = /^ui:\/\/prefab\/tool\/([0-9a-f]{12})\/renderer\.html$/;

/** The per-tool UI resource Portico serves for a tool with a UI. */
export function prefabResourceUri(toolHash: string): string {
  return `ui://prefab/tool/${toolHash}/renderer.html`;
}

/** The tool hash a per-tool UI resource URI names, or null for any other URI. */
export function parsePrefabResourceUri(uri: string): string | null {
  return PREFAB_RESOURCE_URI.exec(uri)?.[1] ?? null;
}

function uiUri(value: unknown): string | null {
  return typeof value === 'string' && value.startsWith('ui://') ? value : null;
}

/** The upstream's own UI resource: `_meta.ui.resourceUri`, else the deprecated flat key. */
export function upstreamUiResourceUri(meta: JsonObject | null): string | null {
  const ui = meta?.ui;
  return (
    (isJsonObject(ui) ? uiUri(ui.resourceUri) : null) ?? uiUri(meta?.[LEGACY_RESOURCE_URI_KEY])
  );
}

/** What a tool's UI resource serves: the upstream's HTML, or Portico's Prefab renderer. */
export type ToolUi = { kind: 'upstream'; uri: string } | { kind: 'prefab' };

/** A switched-on Prefab renderer wins over the upstream's UI: the operator chose it. */
export function toolUi(meta: JsonObject | null, appConfig: ToolAppConfig | null): ToolUi | null {
  if (appConfig?.prefab === true) return { kind: 'prefab' };
  const uri = upstreamUiResourceUri(meta);
  return uri === null ? null : { kind: 'upstream', uri };
}

/**
 * A tool's `_meta` as every API shows it, built on a copy: a tool with a UI points at its per-tool
 * resource (in both the nested and, where the upstream used it, the flat form), and `csp` and
 * `permissions` are dropped, as they belong on the resource.
 */
export function presentToolMeta(
  meta: JsonObject | null,
  toolHash: string,
  appConfig: ToolAppConfig | null,
): JsonObject | null {
  const ui = isJsonObject(meta?.ui) ? meta.ui : null;
  const hasUi = toolUi(meta, appConfig) !== null;
  if (!hasUi && !(ui && ('csp' in ui || 'permissions' in ui))) return meta;
  const { csp: _csp, permissions: _permissions, ...rest } = ui ?? {};
  const presented: JsonObject = { ...meta };
  if (hasUi) {
    const uri = prefabResourceUri(toolHash);
    presented.ui = { ...rest, resourceUri: uri };
    if (LEGACY_RESOURCE_URI_KEY in presented) presented[LEGACY_RESOURCE_URI_KEY] = uri;
  } else {
    presented.ui = rest;
  }
  return presented;
}
