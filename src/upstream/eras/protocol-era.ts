import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';

/**
 * The MCP revisions Portico speaks upstream. The 2025 era (2024-11-05 … 2025-11-25) opens a
 * session with `initialize`; the 2026-07-28 era states its version in every request's `_meta`.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];
export const SESSION_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** The revision Portico asks a modern upstream for: the newest it speaks. */
export const MODERN_PROTOCOL_VERSION = MODERN_PROTOCOL_VERSIONS[0]!;

/**
 * What an upstream speaks: `2026-07-28` (no handshake, no session), `2025` (a session opened with
 * `initialize`), or `incompatible`: only versions Portico does not speak, which is no outage.
 */
export const PROTOCOL_ERAS = ['2026-07-28', '2025', 'incompatible'] as const;
export type ProtocolEra = (typeof PROTOCOL_ERAS)[number];

/**
 * The era an operator pins an upstream to: `auto` probes it; `2025` and `2026-07-28` speak that
 * era without probing, for an upstream whose probe would mislead (or while the revision settles).
 */
export const ERA_PINS = ['auto', '2025', '2026-07-28'] as const;
export type EraPin = (typeof ERA_PINS)[number];

/** The probe's verdict on one upstream, kept on the gateway until it expires. */
export interface EraVerdict {
  era: ProtocolEra;
  /** The version Portico speaks with it; null when incompatible, or 2025 before `initialize`. */
  version: string | null;
  /** What the upstream said it supports (discover, or -32022's `data.supported`); empty if it did not say. */
  supportedVersions: string[];
  /**
   * The extensions a 2026-07-28 upstream declared in `server/discover` (by name); absent when the
   * verdict came from anything else (a pin, a refusal, a 2025 upstream).
   */
  extensions?: string[];
  checkedAt: Date;
}

/** The 2026-07-28 error a server answers a version it does not serve with. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** The 2026-07-28 error for headers that disagree with the body (Mcp-Param-* among them). */
export const HEADER_MISMATCH = -32020;

/** The extensions of a modern upstream's discover kept with its verdict, by name, at most. */
const EXTENSIONS_KEPT = 64;

/** A DiscoverResult's verdict: modern when it offers a modern version Portico speaks. */
export function verdictOfDiscover(
  result: { supportedVersions: unknown; capabilities?: { extensions?: unknown } },
  checkedAt = new Date(),
): EraVerdict {
  const versions = stringsOf(result.supportedVersions);
  const modern = MODERN_PROTOCOL_VERSIONS.find((version) => versions.includes(version));
  if (!modern) return verdictOfSupported(versions, checkedAt);
  const declared = result.capabilities?.extensions;
  const extensions =
    typeof declared === 'object' && declared !== null
      ? Object.keys(declared).slice(0, EXTENSIONS_KEPT)
      : [];
  return {
    era: '2026-07-28',
    version: modern,
    supportedVersions: kept(versions),
    extensions,
    checkedAt,
  };
}

/**
 * A -32022 answer's verdict, from its `data.supported`: modern when it lists a modern version
 * Portico speaks, 2025 when it lists a 2025 one, else incompatible. Null when the error does
 * not say what the upstream supports, and so decides nothing.
 */
export function verdictOfUnsupported(data: unknown, checkedAt = new Date()): EraVerdict | null {
  const supported = (data as { supported?: unknown } | null | undefined)?.supported;
  if (!Array.isArray(supported)) return null;
  return verdictOfSupported(stringsOf(supported), checkedAt);
}

function verdictOfSupported(versions: string[], checkedAt: Date): EraVerdict {
  const supportedVersions = kept(versions);
  const modern = MODERN_PROTOCOL_VERSIONS.find((version) => versions.includes(version));
  if (modern) return { era: '2026-07-28', version: modern, supportedVersions, checkedAt };
  const session = SESSION_PROTOCOL_VERSIONS.find((version) => versions.includes(version));
  if (session) return { era: '2025', version: session, supportedVersions, checkedAt };
  return { era: 'incompatible', version: null, supportedVersions, checkedAt };
}

/** An upstream that did not take a modern request: a 2025 server. */
export function sessionEraVerdict(checkedAt = new Date()): EraVerdict {
  return { era: '2025', version: null, supportedVersions: [], checkedAt };
}

/** The verdict a pin stands for (taken now); null for `auto`, which probes. */
export function pinnedVerdict(pin: EraPin | undefined): EraVerdict | null {
  if (pin !== '2025' && pin !== '2026-07-28') return null;
  return pin === '2025'
    ? sessionEraVerdict()
    : { era: pin, version: MODERN_PROTOCOL_VERSION, supportedVersions: [], checkedAt: new Date() };
}

/** What a gateway's status says of an upstream whose versions Portico does not speak. */
export function speaksOnly(verdict: Pick<EraVerdict, 'supportedVersions'>): string {
  const theirs = verdict.supportedVersions.join(', ') || 'versions it did not name';
  const ours = [...MODERN_PROTOCOL_VERSIONS, ...SESSION_PROTOCOL_VERSIONS].join(', ');
  return `the upstream speaks only ${theirs}; Portico speaks ${ours}`;
}

/** Whether a verdict checked at `checkedAt` still holds `ttlMs` later. */
export function fresh(checkedAt: Date, ttlMs: number, now = Date.now()): boolean {
  return now - checkedAt.getTime() < ttlMs;
}

/** The versions of an upstream's list a verdict keeps, at most. */
const VERSIONS_KEPT = 32;

/** The longest string taken for a version (they are dates); a longer one is none. */
const VERSION_LENGTH = 64;

/** Every version of a list an upstream sent (bounded by the message limits): each is judged. */
function stringsOf(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter(
        (item): item is string => typeof item === 'string' && item.length <= VERSION_LENGTH,
      )
    : [];
}

/**
 * What a verdict keeps of the versions an upstream listed, in its order: every one Portico speaks,
 * so that a long list cannot push them out, and the first others, VERSIONS_KEPT in all.
 */
function kept(versions: readonly string[]): string[] {
  const unique = [...new Set(versions)];
  const spoken = (version: string) =>
    MODERN_PROTOCOL_VERSIONS.includes(version) || SESSION_PROTOCOL_VERSIONS.includes(version);
  let room = VERSIONS_KEPT - unique.filter(spoken).length;
  return unique.filter((version) => spoken(version) || room-- > 0);
}
