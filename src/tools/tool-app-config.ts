/** The four domain lists of an MCP Apps resource's `_meta.ui.csp`. */
export const CSP_DOMAIN_LISTS = [
  'connectDomains',
  'resourceDomains',
  'frameDomains',
  'baseUriDomains',
] as const;
export type CspDomainList = (typeof CSP_DOMAIN_LISTS)[number];

/** Browser permissions an MCP Apps resource may ask its host for (`_meta.ui.permissions`). */
export const UI_PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
export type UiPermission = (typeof UI_PERMISSIONS)[number];

/** Operator-set MCP Apps settings of one tool, merged into its UI resource. */
export interface ToolAppConfig {
  /** Serve Portico's bundled Prefab renderer as the tool's UI. */
  prefab?: boolean;
  csp?: Partial<Record<CspDomainList, string[]>>;
  permissions?: Partial<Record<UiPermission, Record<string, never>>>;
  prefersBorder?: boolean;
}

/**
 * Whether an operator may add this origin to a tool's CSP: `https://host[:port]`, or
 * `http://localhost[:port]` for development. No wildcards, paths or credentials.
 */
export function isAllowedAppOrigin(value: string): boolean {
  if (!APP_ORIGIN.test(value)) return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** Lowercase ASCII host names only (IDNs in their xn-- form), so nothing can end a CSP source. */
const APP_ORIGIN =
  /^(?:https:\/\/[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|http:\/\/localhost)(?::\d{1,5})?$/;
