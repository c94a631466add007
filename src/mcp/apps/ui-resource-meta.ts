import { getPublicSuffix } from 'tldts';
import { CSP_DOMAIN_LISTS, type CspDomainList, UI_PERMISSIONS } from '../../tools/tool-app-config';
import { isJsonObject } from '../../common/json-value';

/** `_meta.ui` of an MCP Apps resource as Portico serves it. */
export interface UiResourceMeta {
  /** All four lists, always present; empty means none allowed. */
  csp: Record<CspDomainList, string[]>;
  permissions?: Record<string, Record<string, never>>;
  prefersBorder?: boolean;
  domain?: string;
}

/** How many sources one `_meta.ui` may declare in a list; more is no list of origins but a flood. */
export const CSP_LIST_LIMIT = 32;

/** What a merge refused, for the log: how many sources, and the first few of them, cut short. */
export interface DroppedSources {
  count: number;
  samples: string[];
}

const DROPPED_SAMPLES = 5;
const SAMPLE_LENGTH = 80;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** A top-level label is never all digits: that would be an IP address, not a domain. */
const TOP_LABEL = '(?:[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?|xn--[a-z0-9-]{1,59})';
/** Lowercase ASCII names (IDNs in their xn-- form): nothing in them can end a CSP source. */
const HOST = new RegExp(`^(?:${LABEL}\\.)*${TOP_LABEL}$`);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const ORIGIN =
  /^(?<scheme>https?|wss?):\/\/(?<wildcard>\*\.)?(?<host>[^/:]+|\[::1\])(?::(?<port>[1-9]\d{0,4}))?$/;

/**
 * Whether a CSP source an upstream declares is one origin, as hosts paste it into a policy:
 * `https://host[:port]` (or `wss://` for a WebSocket), with at most a leading `*.` for the
 * subdomains of a domain someone owns, or `http://` (`ws://`) for a loopback host. A bare `*` or
 * scheme, a wildcard on a public suffix (`*.com`, `*.co.uk`, `*.github.io`: every site under it,
 * by the Public Suffix List, its private part included), `data:`, `blob:`, keywords, paths and
 * anything that could end a directive would let a hostile upstream's page reach anywhere, so they
 * are refused.
 */
export function isCspOrigin(value: string): boolean {
  const { scheme, wildcard, host = '', port } = ORIGIN.exec(value)?.groups ?? {};
  if (!scheme || Number(port ?? 1) > 65535) return false;
  if (LOOPBACK.has(host)) return !wildcard;
  return (
    (scheme === 'https' || scheme === 'wss') &&
    host.length <= 253 &&
    HOST.test(host) &&
    (!wildcard || getPublicSuffix(host, { allowPrivateDomains: true }) !== host)
  );
}

/**
 * Whether a `domain` (the origin a host may give the page's sandbox; its form is the host's) is one
 * host name or one origin, nothing a host could paste into a header or policy as something more.
 */
function isSandboxDomain(value: string): boolean {
  return value.length <= 253 && (HOST.test(value) || (isCspOrigin(value) && !value.includes('*')));
}

/**
 * Merges `_meta.ui` objects in order (the upstream's list entry, its content item, the operator's
 * app config): the domain lists are concatenated without duplicates, the permissions MCP Apps
 * defines united (no other name is passed on), and a later `prefersBorder` or `domain` wins. Sources are untrusted: a CSP source that is no origin
 * (`isCspOrigin`), or past the first CSP_LIST_LIMIT of its list in its object, is dropped and
 * counted in `dropped`.
 */
export function mergeUiResourceMeta(
  sources: readonly unknown[],
  dropped: DroppedSources = { count: 0, samples: [] },
): UiResourceMeta {
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
        entries.forEach((entry, index) => {
          if (typeof entry === 'string' && isCspOrigin(entry) && index < CSP_LIST_LIMIT)
            lists[list].add(entry);
          else drop(dropped, entry);
        });
      }
    }
    if (isJsonObject(source.permissions)) {
      for (const permission of UI_PERMISSIONS) {
        if (isJsonObject(source.permissions[permission])) permissions[permission] = {};
      }
    }
    if (typeof source.prefersBorder === 'boolean') merged.prefersBorder = source.prefersBorder;
    if (typeof source.domain === 'string' && isSandboxDomain(source.domain))
      merged.domain = source.domain;
    else if (source.domain !== undefined) drop(dropped, source.domain);
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

function drop(dropped: DroppedSources, entry: unknown): void {
  dropped.count += 1;
  if (dropped.samples.length < DROPPED_SAMPLES)
    dropped.samples.push(JSON.stringify(entry ?? null).slice(0, SAMPLE_LENGTH));
}
