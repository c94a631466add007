import { type ClientCapabilities } from '@modelcontextprotocol/server';
import { type UpstreamAsk } from './upstream-connection';

/** The capability a client must have declared for a request of this kind sent to it. */
export function requiredCapability(asked: UpstreamAsk): ClientCapabilities | null {
  switch (asked.method) {
    case 'elicitation/create':
      return (asked.params as { mode?: unknown } | undefined)?.mode === 'url'
        ? { elicitation: { url: {} } }
        : { elicitation: {} };
    case 'sampling/createMessage':
      return { sampling: {} };
    case 'roots/list':
      return { roots: {} };
    default:
      return null;
  }
}

export function declaresCapability(
  declared: ClientCapabilities,
  required: ClientCapabilities,
): boolean {
  if (required.sampling) return declared.sampling !== undefined;
  if (required.roots) return declared.roots !== undefined;
  const elicitation = declared.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  if ((required.elicitation as { url?: unknown }).url) return elicitation.url !== undefined;
  // An empty elicitation capability is form mode (2025-11-25).
  return elicitation.url === undefined || elicitation.form !== undefined;
}
