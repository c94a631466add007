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

/** The extensions whose traffic Portico relays (MCP Apps); others stay downstream. */
const RELAYED_EXTENSIONS = ['io.modelcontextprotocol/ui'];
/**
 * The Tasks extension (SEP-2663), of the stateless revision only: relayed for requests without a
 * session, whose upstream may then answer a task; never for a 2025 session.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** What a request without a session relays: its upstream may answer a task. */
export const STATELESS_EXTENSIONS = [...RELAYED_EXTENSIONS, TASKS_EXTENSION];

/**
 * What Portico declares upstream for a client: what an upstream may act on of the client's
 * capabilities (sampling, elicitation, roots, experimental, and the extensions Portico relays);
 * anything else stays downstream, so that no upstream answers in a form Portico cannot pass on.
 */
export function relayedCapabilities(
  {
    sampling,
    elicitation,
    roots,
    experimental,
    extensions,
  }: ClientCapabilities & { extensions?: unknown },
  relaying: readonly string[] = RELAYED_EXTENSIONS,
): ClientCapabilities {
  const declared = (extensions ?? {}) as Record<string, unknown>;
  const relayed = relaying.filter(
    (name) => declared[name] !== undefined && declared[name] !== null,
  );
  return {
    ...(sampling ? { sampling } : {}),
    ...(elicitation ? { elicitation } : {}),
    ...(roots ? { roots } : {}),
    ...(experimental ? { experimental } : {}),
    ...(relayed.length > 0
      ? {
          extensions: Object.fromEntries(
            relayed.map((name) => [name, declared[name]]),
          ) as ClientCapabilities['extensions'],
        }
      : {}),
  };
}
