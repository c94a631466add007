import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { canonicalJson } from '../../common/canonical-json';
import { mac, macEquals } from '../../common/signed-value';

/** The message a refused state gets on the wire (JSON-RPC -32602), as the SDK words it. */
export const INVALID_REQUEST_STATE = 'Invalid or expired requestState';

/** The largest upstream state Portico wraps: states are echoed by clients on every retry. */
export const MAX_INNER_STATE_BYTES = 64 * 1024;
/** A round waits on a person (elicitation) or a model (sampling): the SDK shim allows 600 s. */
export const DEFAULT_STATE_TTL_SECONDS = 600;

const FORMAT = 'ps1';
/** base64url of the payload (inner state, bindings, JSON quoting) plus the MAC, generously. */
const MAX_SEALED_CHARS = Math.ceil((MAX_INNER_STATE_BYTES * 6 + 4096) * (4 / 3)) + 64;

/** What the state was issued for; the retry must present the same. */
export interface RequestStateBinding {
  /** The principal's subject. */
  subject: string;
  /** `scopeKey` of the endpoint: `all` or `server:<id>`. */
  scope: string;
  gatewayId: string;
  method: 'tools/call' | 'prompts/get' | 'resources/read';
  /** The upstream tool or prompt name, or the upstream resource URI. */
  target: string;
  /** The request's arguments (none for resources/read); only their digest travels. */
  arguments?: unknown;
}

/** A person's yes to the call, given under the policies of `version`: carried to its retries. */
export interface ApprovalMark {
  policy: string;
  version: string;
  /** When it was given (ISO time). */
  at: string;
}

/**
 * What the state carries: an upstream's round (its own state, when it has one, and the call's
 * approval once given); Portico's own round asking a person to approve the call under a policy;
 * or (after a URL elicitation, which the user completes out of band) the word to run the call
 * again.
 */
export type SealedContent =
  | { kind: 'upstream'; requestState?: string; approved?: ApprovalMark }
  | { kind: 'approval'; policy: string; name: string; version: string }
  | { kind: 'rerun' };

/** Why a state was refused; each is a -32602 INVALID_REQUEST_STATE to the client. */
export type RequestStateRefusal =
  | 'malformed'
  | 'oversize'
  | 'signature'
  | 'expired'
  | 'principal'
  | 'scope'
  | 'gateway'
  | 'target'
  | 'arguments';

export type UnsealResult =
  | { ok: true; content: SealedContent; id: string; expiresAt: Date }
  | { ok: false; refusal: RequestStateRefusal; reason: string };

/** An upstream state too large to wrap: the upstream's fault, not the client's. */
export class RequestStateTooLarge extends Error {
  constructor(bytes: number) {
    super(`its input round's requestState is ${bytes} bytes, more than ${MAX_INNER_STATE_BYTES}`);
  }
}

interface Payload {
  v: 1;
  /** Random: names this round, for logs and replay checks. */
  id: string;
  /** Expiry, epoch seconds. */
  exp: number;
  sub: string;
  sc: string;
  gw: string;
  m: string;
  t: string;
  /** SHA-256 of the canonical JSON of the arguments. */
  ad: string;
  c: SealedContent;
}

const REASONS: Record<RequestStateRefusal, string> = {
  malformed: 'the state is not one Portico issued',
  oversize: 'the state is too large',
  signature: 'the state was altered, or issued with another key',
  expired: 'the state has expired',
  principal: 'the state was issued to another principal',
  scope: 'the state was issued on another endpoint',
  gateway: 'the state was issued for another gateway',
  target: 'the state was issued for another tool, prompt or resource',
  arguments: 'the state was issued for other arguments',
};

/**
 * Portico's own `requestState` for a Multi Round-Trip Request: an upstream's round relayed, or
 * one of Portico's own: `ps1.<base64url(JSON)>.<base64url(HMAC-SHA256)>`. Signed, not encrypted:
 * what it carries is the client's own request and what the upstream would have handed the client
 * anyway. Stateless, so the retry may land on any replica that shares JWT_SECRET; the key is
 * derived from it, so rotating JWT_SECRET invalidates every state in flight.
 */
export class RequestStateSealer {
  private readonly key: Buffer;
  private readonly ttlSeconds: number;
  private readonly now: () => number;

  constructor(secret: string, options: { ttlSeconds?: number; now?: () => number } = {}) {
    this.key = Buffer.from(
      hkdfSync('sha256', secret, 'portico', 'portico:mcp-request-state:v1', 32),
    );
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_STATE_TTL_SECONDS;
    this.now = options.now ?? Date.now;
  }

  /** Throws RequestStateTooLarge when the upstream's state is over MAX_INNER_STATE_BYTES. */
  seal(binding: RequestStateBinding, content: SealedContent): string {
    if (content.kind === 'upstream' && content.requestState !== undefined) {
      const bytes = Buffer.byteLength(content.requestState);
      if (bytes > MAX_INNER_STATE_BYTES) throw new RequestStateTooLarge(bytes);
    }
    const payload: Payload = {
      v: 1,
      id: randomBytes(16).toString('base64url'),
      exp: Math.floor(this.now() / 1000) + this.ttlSeconds,
      sub: binding.subject,
      sc: binding.scope,
      gw: binding.gatewayId,
      m: binding.method,
      t: binding.target,
      ad: argumentDigest(binding.arguments),
      c: content,
    };
    // JSON escapes lone surrogates, so the encoded text is valid UTF-8 and decodes to the same string.
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${FORMAT}.${body}.${this.signatureOf(body)}`;
  }

  /** Checks the MAC, the expiry and every binding against the retry's own. */
  unseal(state: unknown, binding: RequestStateBinding): UnsealResult {
    if (typeof state !== 'string') return refuse('malformed');
    if (state.length > MAX_SEALED_CHARS) return refuse('oversize');
    const [format, body, signature, ...rest] = state.split('.');
    if (format !== FORMAT || !body || !signature || rest.length > 0) return refuse('malformed');
    if (!macEquals(this.signatureOf(body), signature)) return refuse('signature');
    const payload = parsePayload(body);
    if (!payload) return refuse('malformed');
    if (payload.exp * 1000 <= this.now()) return refuse('expired');
    if (payload.sub !== binding.subject) return refuse('principal');
    if (payload.sc !== binding.scope) return refuse('scope');
    if (payload.gw !== binding.gatewayId) return refuse('gateway');
    if (payload.m !== binding.method || payload.t !== binding.target) return refuse('target');
    let digest: string;
    try {
      digest = argumentDigest(binding.arguments);
    } catch {
      return refuse('arguments');
    }
    if (payload.ad !== digest) return refuse('arguments');
    return {
      ok: true,
      content: payload.c,
      id: payload.id,
      expiresAt: new Date(payload.exp * 1000),
    };
  }

  private signatureOf(body: string): string {
    return mac(this.key, `${FORMAT}.${body}`);
  }
}

/** Missing arguments and `{}` are the same request. Bounded: canonicalJson walks iteratively. */
function argumentDigest(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}

function refuse(refusal: RequestStateRefusal): UnsealResult {
  return { ok: false, refusal, reason: REASONS[refusal] };
}

/** The payload when it has the shape this version writes; signed, but checked all the same. */
function parsePayload(body: string): Payload | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const p = value as Record<string, unknown>;
  const strings = ['id', 'sub', 'sc', 'gw', 'm', 't', 'ad'].every((k) => typeof p[k] === 'string');
  if (p.v !== 1 || !strings || typeof p.exp !== 'number' || !isContent(p.c)) return null;
  return value as Payload;
}

function isContent(value: unknown): value is SealedContent {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  if (c.kind === 'upstream')
    return (
      (c.requestState === undefined || typeof c.requestState === 'string') &&
      (c.approved === undefined || isMark(c.approved))
    );
  if (c.kind === 'rerun') return true;
  return (
    c.kind === 'approval' &&
    typeof c.policy === 'string' &&
    typeof c.name === 'string' &&
    typeof c.version === 'string'
  );
}

function isMark(value: unknown): value is ApprovalMark {
  if (typeof value !== 'object' || value === null) return false;
  const mark = value as Record<string, unknown>;
  return (
    typeof mark.policy === 'string' &&
    typeof mark.version === 'string' &&
    typeof mark.at === 'string'
  );
}
