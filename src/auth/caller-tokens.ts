import { Injectable } from '@nestjs/common';
import { type Principal, type PrincipalSource } from './principal';

/**
 * The tokens a security token service can take as the subject of an exchange (RFC 8693): those of
 * Portico's own authorization server and those of the identity provider it trusts. A Portico API
 * token, a login token or an admin page's session is Portico's alone: no token service knows it.
 */
const EXCHANGEABLE: ReadonlySet<PrincipalSource> = new Set(['oauth', 'external']);

/** Callers remembered at most; the longest unseen is forgotten first. */
const MAX_CALLERS = 10_000;

/** A caller's own bearer token, as Portico received it, with when it stops being good. */
export interface CallerToken {
  token: string;
  /** Epoch ms; absent when unknown. */
  expiresAt?: number;
}

/**
 * The latest exchangeable bearer token of each caller (by principal subject), kept in this
 * replica's memory only and never written anywhere: what a token-exchange upstream's connection
 * exchanges when it needs a new token for that caller, whichever request opened the connection.
 */
@Injectable()
export class CallerTokens {
  private readonly latest = new Map<string, CallerToken>();

  /** Notes the token a request came with; one that cannot be exchanged is not kept. */
  remember(principal: Principal, token: string | undefined): void {
    if (!token || !EXCHANGEABLE.has(principal.source)) return;
    const held = this.latest.get(principal.subject);
    if (held?.token === token) return;
    this.latest.delete(principal.subject);
    if (this.latest.size >= MAX_CALLERS) {
      const oldest = this.latest.keys().next();
      if (!oldest.done) this.latest.delete(oldest.value);
    }
    this.latest.set(principal.subject, { token, expiresAt: principal.expiresAt });
  }

  /** The caller's exchangeable token, unless it has expired; null when none is held. */
  of(subject: string): CallerToken | null {
    const held = this.latest.get(subject);
    if (!held) return null;
    if (held.expiresAt !== undefined && held.expiresAt <= Date.now()) {
      this.latest.delete(subject);
      return null;
    }
    return held;
  }
}

/** The subject whose token a request may exchange: null for a caller whose token cannot be. */
export function exchangeSubjectOf(principal: Principal): string | null {
  return EXCHANGEABLE.has(principal.source) ? principal.subject : null;
}
