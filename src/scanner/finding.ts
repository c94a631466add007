/** How strongly a finding suggests an attack: high = a clear attack marker, low = a weak signal. */
export type FindingSeverity = 'high' | 'medium' | 'low';

export const SEVERITIES: readonly FindingSeverity[] = ['high', 'medium', 'low'];

/** One suspicious thing in one place of one definition. */
export interface Finding {
  /** The rule's id, from `SCANNER_RULES`. */
  rule: string;
  severity: FindingSeverity;
  /** Where: `name`, `description`, `inputSchema.properties.path.description`, `arguments[0].name`. */
  field: string;
  message: string;
  /** A short excerpt (at most 120 characters) with invisible characters shown as `\u{...}`. */
  excerpt: string;
}

/** A tool, prompt or resource template as the scanner reads it; every member is untrusted. */
export interface ScannedDefinition {
  kind: 'tool' | 'prompt' | 'resourceTemplate';
  /** The upstream (original) name. */
  name: string;
  title?: string | null;
  description?: string | null;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  meta?: unknown;
  /** A prompt's arguments. */
  arguments?: unknown;
  uriTemplate?: string;
}

/** The more severe of two severities. */
export function worseSeverity(a: FindingSeverity, b: FindingSeverity): FindingSeverity {
  return SEVERITIES.indexOf(a) <= SEVERITIES.indexOf(b) ? a : b;
}

/** The most severe finding's severity, or null when there is none. */
export function worstSeverity(findings: readonly Finding[]): FindingSeverity | null {
  let worst: FindingSeverity | null = null;
  for (const finding of findings)
    worst = worst === null ? finding.severity : worseSeverity(worst, finding.severity);
  return worst;
}
