import { createHash } from 'node:crypto';
import { type ClientCapabilities, type LoggingLevel } from '@modelcontextprotocol/client';
import { canonicalJson } from '../common/canonical-json';
import { type ActingFor, type UpstreamListener } from './upstream-connection';
import { type UpstreamTarget } from './upstream-target';

/**
 * Whose connections a request uses. A 2025 session has its own (`session`), opened on first use
 * and closed with it, so that whatever an upstream sends outside a call (logs, list changes, its
 * own requests) can only reach that session. A request without a session (the 2026-07-28 wire,
 * REST, sync) shares a pool keyed by what its client declared (`shared`).
 */
export interface Affinity {
  /** Unique per session, or the fingerprint of the declaration for shared connections. */
  readonly key: string;
  readonly shared: boolean;
  /** What Portico declares upstream for the caller's client. */
  readonly capabilities: ClientCapabilities;
  /** Whose own token a per-user OAuth or token-exchange upstream gets. */
  readonly actingFor: ActingFor;
  /** What an upstream sends outside calls, with the gateway it came from; none when shared. */
  readonly listener?: (gatewayId: string) => UpstreamListener;
  /** The level a session asked for, set on each of its connections as it opens. */
  readonly logLevel?: () => LoggingLevel | null;
}

/** The extensions whose traffic Portico relays (MCP Apps); others stay downstream. */
const RELAYED_EXTENSIONS = ['io.modelcontextprotocol/ui'];
/**
 * The Tasks extension (SEP-2663), of the stateless revision only: relayed for requests without a
 * session, whose upstream may then answer a task; never for a 2025 session.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const STATELESS_EXTENSIONS = [...RELAYED_EXTENSIONS, TASKS_EXTENSION];

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

/** A declaration as Portico relays it, with the digest equal declarations share. */
interface Declaration {
  fingerprint: string;
  relayed: ClientCapabilities;
}

/** The declarations seen lately, by their JSON as sent: clients repeat theirs. */
const declarations = new Map<string, Declaration>();
const DECLARATIONS_KEPT = 1024;
/** Longer declarations are digested each time rather than kept. */
const DECLARATION_KEY_CHARS = 1024;

/** What a client declared, as relayed upstream and digested: equal ones share connections. */
function declarationOf(capabilities: ClientCapabilities): Declaration {
  const sent = JSON.stringify(capabilities);
  let declaration = declarations.get(sent);
  if (declaration === undefined) {
    const relayed = relayedCapabilities(capabilities, STATELESS_EXTENSIONS);
    declaration = {
      fingerprint: createHash('sha256').update(canonicalJson(relayed)).digest('hex').slice(0, 16),
      relayed,
    };
    if (sent.length > DECLARATION_KEY_CHARS) return declaration;
    if (declarations.size >= DECLARATIONS_KEPT) declarations.clear();
    declarations.set(sent, declaration);
  }
  return declaration;
}

/** The affinity of a request without a session: shared by every caller that declared the same. */
export function sharedAffinity(capabilities: ClientCapabilities, actingFor: ActingFor): Affinity {
  const { fingerprint, relayed } = declarationOf(capabilities);
  return { key: fingerprint, shared: true, capabilities: relayed, actingFor };
}

/**
 * Whose authorization a connection to the target carries: a per-user OAuth upstream sees the
 * acting user's own token, a token-exchange upstream one exchanged for the caller's (Portico's own
 * without a caller); every other upstream the gateway's one credential, shared by all.
 */
export function authorizationContext(
  target: UpstreamTarget,
  actingFor: ActingFor | undefined,
): string {
  const { credentials } = target.endpoint;
  if (credentials.type === 'oauth' && credentials.mode === 'per-user' && actingFor)
    return `user:${actingFor.userId ?? '-'}`;
  if (credentials.type === 'token-exchange')
    return actingFor ? `caller:${actingFor.subject ?? '-'}` : 'portico';
  return 'gateway';
}
