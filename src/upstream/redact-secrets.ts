/**
 * Runs shorter than this are not searched for: they would blank out ordinary words. Any longer
 * run of a credential is cut, so an upstream that echoes part of one (the token without its
 * `Bearer ` prefix, a header value cut short) reveals nothing either.
 */
export const SHORTEST_REDACTED_RUN = 8;

/** A shorter secret is cut only where it appears whole, and not at all below this. */
const SHORTEST_WHOLE_SECRET = 6;

const REDACTED = '[redacted]';

/**
 * `text` with every run of at least SHORTEST_REDACTED_RUN characters of any secret cut out, in
 * raw and in JSON-escaped form. Shorter secrets are cut only where they appear whole.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const windows = new Set<string>();
  const whole: string[] = [];
  for (const secret of secrets) {
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
      if (form.length < SHORTEST_REDACTED_RUN) {
        if (form.length >= SHORTEST_WHOLE_SECRET) whole.push(form);
        continue;
      }
      for (let i = 0; i + SHORTEST_REDACTED_RUN <= form.length; i++)
        windows.add(form.slice(i, i + SHORTEST_REDACTED_RUN));
    }
  }
  if (windows.size === 0 && whole.length === 0) return text;
  // Any run of a secret that is at least a window long is a chain of overlapping windows of it.
  const cut = new Uint8Array(text.length);
  for (let i = 0; i + SHORTEST_REDACTED_RUN <= text.length; i++) {
    if (windows.has(text.slice(i, i + SHORTEST_REDACTED_RUN)))
      cut.fill(1, i, i + SHORTEST_REDACTED_RUN);
  }
  for (const secret of whole) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1))
      cut.fill(1, at, at + secret.length);
  }
  let out = '';
  for (let i = 0; i < text.length;) {
    if (cut[i] === 0) {
      out += text[i++];
      continue;
    }
    while (i < text.length && cut[i] === 1) i++;
    out += REDACTED;
  }
  return out;
}
