import { createHash } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json';
import { rewriteJson } from '../common/json-walk';
import { type AuditArguments } from '../config/slices/audit.settings';

/** Field names whose values are never kept, whatever AUDIT_ARGUMENTS says. */
const SECRET_NAME =
  /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|credential|cookie|private[-_]?key|^key$/i;

const REDACTED = '[redacted]';

/** `value` with the values of secret-named fields replaced, at every depth. */
export function withoutSecrets(value: unknown): unknown {
  return rewriteJson(value, (member, key) =>
    key !== undefined && SECRET_NAME.test(key) ? REDACTED : member,
  );
}

/**
 * What the trail keeps of some arguments: nothing, their digest, or the digest and the arguments
 * without their secret-named fields. The digest is of the arguments as sent, so that two calls
 * with the same arguments can be matched without keeping them.
 */
export function auditedArguments(
  args: unknown,
  kept: AuditArguments,
): { argumentsDigest: string | null; arguments: object | null } {
  if (kept === 'none' || args === undefined) return { argumentsDigest: null, arguments: null };
  const argumentsDigest = createHash('sha256').update(canonicalJson(args)).digest('hex');
  if (kept !== 'full') return { argumentsDigest, arguments: null };
  const stored = withoutSecrets(args);
  return { argumentsDigest, arguments: typeof stored === 'object' ? stored : { value: stored } };
}
