import { CSP_DOMAIN_LISTS, type CspDomainList } from '../../tools/tool-app-config';
import { isJsonObject } from '../../common/json-value';

/** `_meta.ui` of an MCP Apps resource as Portico serves it. */
export interface UiResourceMeta {
  /** All four lists, always present; empty means none allowed. */
  csp: Record<CspDomainList, string[]>;
  permissions?: Record<string, Record<string, never>>;
  prefersBorder?: boolean;
  domain?: string;
}

/**
 * One CSP source expression: hosts paste these into a policy, so anything that could end a
 * directive or start another (whitespace, `;`, `,`, quotes) is refused.
 */
const CSP_SOURCE = /^[^\s;,'"]{1,2048}$/;

/**
 * Merges `_meta.ui` objects in order (the upstream's list entry, its content item, the operator's
 * app config): the domain lists are concatenated without duplicates, permissions united, and a
 * later `prefersBorder` or `domain` wins. Sources are untrusted; what is malformed is dropped.
 */
export function mergeUiResourceMeta(sources: readonly unknown[]): UiResourceMeta {
  const lists = Object.fromEntries(
    CSP_DOMAIN_LISTS.map((list) => [list, new Set<string>()]),
  ) as Record<CspDomainList, Set<string>>;
  const permissions: Record<string, Record<string, never>> = {};
  const merged: Omit<UiResourceMeta, 'csp'> = {};
  for (const source of sources) {
    if (!isJsonObject(source)) continue;
    if (isJsonObject(source.csp)) {
      for (const list of CSP_DOMAIN_LISTS) {
        const entries = source.csp[list];
        if (!Array.isArray(entries)) continue;
        for (const entry of entries) {
          if (typeof entry === 'string' && CSP_SOURCE.test(entry)) lists[list].add(entry);
        }
      }
    }
    if (isJsonObject(source.permissions)) {
      for (const [permission, grant] of Object.entries(source.permissions)) {
        if (isJsonObject(grant)) permissions[permission] = {};
      }
    }
    if (typeof source.prefersBorder === 'boolean') merged.prefersBorder = source.prefersBorder;
    if (typeof source.domain === 'string') merged.domain = source.domain;
  }
  return {
    csp: Object.fromEntries(CSP_DOMAIN_LISTS.map((list) => [list, [...lists[list]]])) as Record<
      CspDomainList,
      string[]
    >,
    ...(Object.keys(permissions).length > 0 ? { permissions } : {}),
    ...merged,
  };
}
