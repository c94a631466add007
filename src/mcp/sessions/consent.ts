import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type JSONRPCResponse, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { EventBus } from '../../events/event-bus';
import { declaresCapability } from '../../upstream/client-capabilities';
import { SHARED_OWNER } from '../../upstream/oauth/upstream-oauth-token.entity';
import { UpstreamOAuth } from '../../upstream/oauth/upstream-oauth.service';
import { type McpRequest } from '../protocol/mcp-request';
import { type SessionRuntime } from './session-runtime';

/** How long a call waits for its user to finish connecting once they said they would. */
export const CONNECT_WAIT_MS = 10 * 60_000;
/** Calls one replica holds waiting for a connection at most; past it, the error stands. */
const MAX_WAITING = 10_000;

const URL_ELICITATION_REQUIRED: number = ProtocolErrorCode.UrlElicitationRequired;

/** The URL elicitation a call failed for (-32042): where its user connects, as Portico said. */
export interface ConnectElicitation {
  elicitationId: string;
  url: string;
  message: string;
}

/** The first URL elicitation of a -32042 answer; null for any other answer. */
export function connectElicitation(answer: JSONRPCResponse): ConnectElicitation | null {
  if (!('error' in answer) || answer.error.code !== URL_ELICITATION_REQUIRED) return null;
  const data = answer.error.data as { elicitations?: unknown } | undefined;
  const first = (Array.isArray(data?.elicitations) ? data.elicitations[0] : undefined) as
    Partial<ConnectElicitation> | undefined;
  if (typeof first?.url !== 'string' || typeof first.elicitationId !== 'string') return null;
  return {
    elicitationId: first.elicitationId,
    url: first.url,
    message: typeof first.message === 'string' ? first.message : first.url,
  };
}

/** One call waiting for its user to connect. */
export interface ConnectWait {
  /** True once they connected; false when the wait ran out or the call was cancelled. */
  readonly connected: Promise<boolean>;
  cancel(): void;
}

/**
 * Calls of 2025 sessions waiting for their user to connect an OAuth upstream, which the user was
 * asked to do by a URL elicitation. The connect flow may finish on any replica: its
 * `oauth.connected` event reaches every one, and the calls waiting for that user (or for the
 * gateway's own account) at that gateway's connect page go on.
 */
@Injectable()
export class ConsentWaits implements OnModuleInit, OnModuleDestroy {
  private readonly waiting = new Map<string, Set<(connected: boolean) => void>>();
  private size = 0;
  private unsubscribe?: () => void;

  constructor(
    private readonly bus: EventBus,
    private readonly oauth: UpstreamOAuth,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type !== 'oauth.connected') return;
      const url = this.oauth.connectUrl(event.gatewayId);
      if (event.owner === SHARED_OWNER) {
        for (const [key, waits] of this.waiting)
          if (key.startsWith(`${url}\0`)) for (const settle of [...waits]) settle(true);
        return;
      }
      for (const settle of [...(this.waiting.get(`${url}\0${event.owner}`) ?? [])]) settle(true);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    for (const waits of this.waiting.values()) for (const settle of [...waits]) settle(false);
  }

  /**
   * Whether the user, asked by a URL elicitation to connect their account as the answer says
   * (-32042), accepted and connected (on any replica); the client hears that the elicitation is
   * complete. False, leaving the answer as it is, for a client that did not declare URL
   * elicitation, a caller who is no user, a refusal or a wait that runs out.
   */
  async connected(
    runtime: SessionRuntime,
    request: McpRequest,
    answer: JSONRPCResponse,
  ): Promise<boolean> {
    const elicitation = connectElicitation(answer);
    const userId = request.principal.userId;
    if (
      !elicitation ||
      !userId ||
      !declaresCapability(request.meta.clientCapabilities, { elicitation: { url: {} } })
    )
      return false;
    const wait = this.expect(elicitation.url, userId, request.signal);
    if (!wait) return false;
    try {
      const asked = await runtime.ask(
        { method: 'elicitation/create', params: { mode: 'url', ...elicitation } },
        request.id,
        request.signal,
      );
      if ((asked as { action?: unknown }).action !== 'accept' || !(await wait.connected))
        return false;
    } catch {
      return false;
    } finally {
      wait.cancel();
    }
    runtime.toClient(
      {
        jsonrpc: '2.0',
        method: 'notifications/elicitation/complete',
        params: { elicitationId: elicitation.elicitationId },
      },
      request.id,
    );
    return true;
  }

  /**
   * Starts waiting for `userId` to connect at `url`, before they are asked, so that a flow that
   * finishes at once is not missed. Null when this replica holds too many waits already.
   */
  private expect(url: string, userId: string, signal: AbortSignal): ConnectWait | null {
    if (this.size >= MAX_WAITING) return null;
    const key = `${url}\0${userId}`;
    let settle!: (connected: boolean) => void;
    const connected = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), CONNECT_WAIT_MS);
      const aborted = () => settle(false);
      settle = (value) => {
        const waits = this.waiting.get(key);
        if (!waits?.delete(settle)) return;
        this.size--;
        if (waits.size === 0) this.waiting.delete(key);
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        resolve(value);
      };
      const waits = this.waiting.get(key) ?? new Set();
      waits.add(settle);
      this.waiting.set(key, waits);
      this.size++;
      if (signal.aborted) settle(false);
      else signal.addEventListener('abort', aborted, { once: true });
    });
    return { connected, cancel: () => settle(false) };
  }
}
