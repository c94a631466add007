import { type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/server';
import { mergeUiResourceMeta, type UiResourceMeta } from '../mcp/apps/ui-resource-meta';
import { ADMIN_CSP } from './admin-views';
import { hrefWith } from './pagination';

/** The admin CSP, letting the playground page frame its own app route (and nothing else). */
export const PLAYGROUND_PAGE_CSP = `${ADMIN_CSP}; frame-src 'self'`;

/** What the result page needs to show an MCP App tool's UI. */
export interface PlaygroundAppView {
  /** The frame's URL: the app route, for this endpoint and user. */
  frameSrc: string;
  /** The call's arguments and result, as JSON, for the host script to hand to the View. */
  input: string;
  result: string;
}

/** A tool's UI resource URI, as its listed definition gives it; null: no UI. */
export function uiResourceUri(definition: McpTool): string | null {
  const ui = (definition._meta as { ui?: { resourceUri?: unknown } } | undefined)?.ui;
  return typeof ui?.resourceUri === 'string' && ui.resourceUri.startsWith('ui://')
    ? ui.resourceUri
    : null;
}

/** The UI of an MCP App tool's call, for the page to frame; null for a tool without one. */
export function playgroundAppOf(
  definition: McpTool,
  args: Record<string, unknown>,
  result: CallToolResult,
  place: { server: string; as: string },
): PlaygroundAppView | null {
  const uri = uiResourceUri(definition);
  if (!uri) return null;
  return {
    frameSrc: hrefWith('/admin/playground/app', { ...place, uri }),
    input: JSON.stringify({ arguments: args }),
    result: JSON.stringify(result),
  };
}

/**
 * The CSP of an MCP App's document, as the MCP Apps extension maps the resource's declared domains:
 * inline scripts and styles of the View itself, `resourceDomains` for what it loads,
 * `connectDomains` for what it fetches, `frameDomains` for frames, `baseUriDomains` for `<base>`;
 * nothing else, and only the playground page may frame it. The frame is sandboxed to scripts
 * alone (an opaque origin), so the View reaches no cookie and no admin route.
 */
export function appFrameCsp(meta: unknown): string {
  const { csp }: UiResourceMeta = mergeUiResourceMeta([meta]);
  const list = (domains: string[], fallback: string) =>
    domains.length > 0 ? domains.join(' ') : fallback;
  const resources = csp.resourceDomains.join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `media-src data: ${resources}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'none'")}`,
    "form-action 'none'",
    "frame-ancestors 'self'",
    // Sandboxed even where it is opened on its own, not in the playground's frame.
    'sandbox allow-scripts',
  ].join('; ');
}
