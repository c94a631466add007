/**
 * Common credential formats, as published by their issuers; each match is cut whole. Kept to
 * prefixes and lengths that ordinary prose does not produce.
 */
export const SECRET_PATTERNS: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  {
    kind: 'aws-secret-access-key',
    pattern: /(aws_secret_access_key|AWS_SECRET_ACCESS_KEY)(\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/g,
  },
  { kind: 'github-token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { kind: 'github-fine-grained-token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/g },
  {
    kind: 'private-key',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
];

/** `text` with every credential of a known format replaced by `[redacted:<kind>]`. */
export function redactKnownSecrets(text: string): { text: string; found: number } {
  let found = 0;
  let out = text;
  for (const { kind, pattern } of SECRET_PATTERNS) {
    out = out.replace(pattern, (...match: unknown[]) => {
      found++;
      // The AWS secret pattern keeps the key name and separator, and cuts the value only.
      if (kind === 'aws-secret-access-key')
        return `${String(match[1])}${String(match[2])}[redacted:${kind}]`;
      return `[redacted:${kind}]`;
    });
  }
  return { text: out, found };
}
