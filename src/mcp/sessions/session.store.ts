import {
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { DataSource, In, LessThan, Not } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { McpSettings } from '../../config/slices/mcp.settings';
import { isDatabaseUnavailable } from '../../common/database-errors';
import { Memo } from '../../common/memo';
import { EventBus, isResync } from '../../events/event-bus';
import { Metrics } from '../../observability/metrics';
import { McpSession } from '../state/mcp-session.entity';
import { exchangeSubjectOf } from '../../auth/principal-resolver';
import { type Principal } from '../../auth/principal';
import { type McpScope } from '../protocol/mcp-scope';
import { type Authorized } from '../protocol/authorized';
import { CONNECTION_CLOSED, McpRefusal } from '../protocol/mcp-errors';
import { type Directories } from '../directory/directories.service';

export type SessionState = Omit<McpSession, 'server' | 'createdAt'>;

/** A new session of `principal` in `scope`, as either 2025 transport opens it. */
export function newSession(
  principal: Principal,
  scope: McpScope,
  opened: Pick<SessionState, 'transport' | 'protocolVersion' | 'initializeParams'>,
): Omit<SessionState, 'lastSeenAt'> {
  return {
    id: randomUUID(),
    serverId: scope.kind === 'server' ? scope.serverId : null,
    subject: principal.subject,
    userId: principal.userId,
    exchangeable: exchangeSubjectOf(principal) !== null,
    ...opened,
    logLevel: null,
    subscriptions: [],
  };
}

const TOUCH_EVERY_MS = 60_000;
const CACHE_LIMIT = 50_000;
const CLEANUP_EVERY_MS = 5 * 60_000;

/**
 * MCP sessions in PostgreSQL, with a per-replica cache so that a request costs no database round
 * trip. Any change is announced on the bus, and every replica drops its cached copy. After a
 * resync (announcements may have been missed) each session is read again, and while the database
 * is unavailable what was known keeps serving, so that sessions opened before an outage go on.
 */
@Injectable()
export class SessionStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionStore.name);
  private cache = new Map<string, SessionState>();
  /** What the cache held before a resync: served only when the database cannot say better. */
  private unverified = new Map<string, SessionState>();
  /** Sessions this replica opened per principal since it last trimmed that principal's. */
  private readonly openedSinceTrim = new Memo<string, number>(CACHE_LIMIT);
  private unsubscribe?: () => void;
  private cleanup?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    private readonly config: McpSettings,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'mcp.session.changed') {
        this.cache.delete(event.sessionId);
        this.unverified.delete(event.sessionId);
      } else if (isResync(event)) {
        for (const [id, session] of this.cache) this.unverified.set(id, session);
        this.cache = new Map();
      }
    });
    const every = CLEANUP_EVERY_MS + Math.floor(Math.random() * 30_000);
    this.cleanup = setInterval(() => void this.removeExpired(), every).unref();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearInterval(this.cleanup);
  }

  /**
   * Stores a new session. Past `mcp.maxSessionsPerPrincipal` the principal's least recently used
   * end (a session held memory for a day: a client opening them in a loop took a replica's), as
   * counted each time this replica has opened a hundredth of the cap more for the principal.
   */
  async create(state: Omit<SessionState, 'lastSeenAt'>): Promise<SessionState> {
    const session = { ...state, lastSeenAt: new Date() };
    // TypeORM's partial-entity type cannot express the free-form JSON of initialize params.
    await this.dataSource
      .getRepository(McpSession)
      .insert(session as QueryDeepPartialEntity<McpSession>);
    this.remember(session);
    const max = this.config.mcpMaxSessionsPerPrincipal;
    if (max === 0) return session;
    const opened = (this.openedSinceTrim.get(session.subject) ?? 0) + 1;
    this.openedSinceTrim.remember(session.subject, opened < max / 100 ? opened : 0);
    if (opened < max / 100) return session;
    // The least recently used beyond the cap, the new session never among them.
    const beyond = await this.dataSource.getRepository(McpSession).find({
      select: { id: true },
      where: { subject: session.subject, id: Not(session.id) },
      order: { lastSeenAt: 'DESC' },
      skip: max - 1,
      take: 100,
    });
    for (const { id } of beyond) await this.end(id);
    return session;
  }

  /** The live session, or null when it is unknown, ended or expired. */
  async find(id: string): Promise<SessionState | null> {
    const cached = this.cache.get(id);
    if (cached && !this.expired(cached)) return cached;
    let stored: McpSession | null;
    try {
      stored = await this.dataSource.getRepository(McpSession).findOneBy({ id });
    } catch (error) {
      const known = this.unverified.get(id);
      if (!known || this.expired(known) || !isDatabaseUnavailable(error)) throw error;
      this.metrics?.staleReads.inc({ cache: 'mcp-session' });
      this.remember(known);
      return known;
    }
    this.unverified.delete(id);
    if (!stored) {
      this.cache.delete(id);
      return null;
    }
    if (this.expired(stored)) {
      await this.end(id);
      return null;
    }
    const { server: _server, createdAt: _createdAt, ...state } = stored;
    this.remember(state);
    return state;
  }

  /** Marks the session used; written through at most once a minute per replica. */
  touch(session: SessionState): void {
    const now = Date.now();
    if (now - session.lastSeenAt.getTime() < TOUCH_EVERY_MS) return;
    session.lastSeenAt = new Date(now);
    this.dataSource
      .getRepository(McpSession)
      .update({ id: session.id }, { lastSeenAt: session.lastSeenAt })
      .catch((error: unknown) => this.logger.warn(`Could not touch session: ${String(error)}`));
  }

  async update(
    id: string,
    patch: Partial<Pick<SessionState, 'logLevel' | 'initializeParams' | 'protocolVersion'>>,
  ): Promise<void> {
    // TypeORM's partial-entity type cannot express the free-form JSON of initialize params.
    await this.dataSource
      .getRepository(McpSession)
      .update({ id }, patch as QueryDeepPartialEntity<McpSession>);
    const cached = this.cache.get(id);
    if (cached) Object.assign(cached, patch);
    await this.bus.publish({ type: 'mcp.session.changed', sessionId: id, ended: false });
  }

  /**
   * The stored state of these sessions that replicas keep in step with, read afresh (another
   * replica may just have changed it); a session that is gone has no entry.
   */
  async current(
    ids: readonly string[],
  ): Promise<Map<string, Pick<SessionState, 'logLevel' | 'subscriptions' | 'initializeParams'>>> {
    const states = new Map<
      string,
      Pick<SessionState, 'logLevel' | 'subscriptions' | 'initializeParams'>
    >();
    for (let start = 0; start < ids.length; start += 1000) {
      const rows = await this.dataSource.getRepository(McpSession).find({
        select: { id: true, logLevel: true, subscriptions: true, initializeParams: true },
        where: { id: In(ids.slice(start, start + 1000)) },
      });
      // Named one by one: an entity read in part still has every other column, as undefined.
      for (const { id, logLevel, subscriptions, initializeParams } of rows)
        states.set(id, { logLevel, subscriptions, initializeParams });
    }
    return states;
  }

  /**
   * Adds or removes a resource subscription. The row is locked while it changes, so that requests
   * of one session on several replicas at once lose nothing. Returns the subscriptions now stored;
   * null when the session is gone; `full` when `full` says the stored ones leave no room for it.
   */
  async subscribe(
    id: string,
    uri: string,
    subscribed: boolean,
    full: (subscriptions: readonly string[], uri: string) => boolean,
  ): Promise<string[] | 'full' | null> {
    const result = await this.dataSource.transaction(async (em) => {
      const sessions = em.getRepository(McpSession);
      const current = await sessions.findOne({
        select: { id: true, subscriptions: true },
        where: { id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!current) return null;
      if (subscribed && full(current.subscriptions, uri)) return 'full';
      const next = subscribed
        ? [...new Set([...current.subscriptions, uri])]
        : current.subscriptions.filter((candidate) => candidate !== uri);
      if (next.length !== current.subscriptions.length)
        await sessions.update({ id }, { subscriptions: next });
      return next;
    });
    if (Array.isArray(result)) {
      const cached = this.cache.get(id);
      if (cached) cached.subscriptions = result;
      await this.bus.publish({ type: 'mcp.session.changed', sessionId: id, ended: false });
    }
    return result;
  }

  /** Ends the session everywhere; later requests with its id get 404. */
  async end(id: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(McpSession).delete({ id });
    this.cache.delete(id);
    this.unverified.delete(id);
    await this.bus.publish({ type: 'mcp.session.changed', sessionId: id, ended: true });
    return (result.affected ?? 0) > 0;
  }

  private expired(session: Pick<SessionState, 'lastSeenAt'>): boolean {
    return Date.now() - session.lastSeenAt.getTime() > this.config.mcpSessionTtlSeconds * 1000;
  }

  private remember(session: SessionState): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    if (this.unverified.size >= CACHE_LIMIT)
      this.unverified.delete(this.unverified.keys().next().value!);
    this.cache.set(session.id, session);
  }

  /** Ends sessions idle for longer than MCP_SESSION_TTL_SECONDS; runs every few minutes. */
  async removeExpired(): Promise<void> {
    const cutoff = new Date(Date.now() - this.config.mcpSessionTtlSeconds * 1000);
    try {
      const expired = await this.dataSource
        .getRepository(McpSession)
        .find({ select: { id: true }, where: { lastSeenAt: LessThan(cutoff) }, take: 1000 });
      for (const { id } of expired) await this.end(id);
    } catch (error) {
      this.logger.warn(`Session cleanup failed: ${String(error)}`);
    }
  }
}

/**
 * The session a request names: 400 without an id, 404 for an unknown, ended or foreign one, 400
 * for an unknown protocol version. Any version the SDK supports is accepted, not only the
 * negotiated.
 */
export async function requestedSession(
  store: SessionStore,
  directories: Directories,
  { request, scope, principal }: Authorized,
): Promise<SessionState> {
  const id = request.headers['mcp-session-id'];
  if (typeof id !== 'string' || id === '')
    throw new McpRefusal(400, 'Mcp-Session-Id header is required');
  const version = request.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
    throw new McpRefusal(400, `Unsupported MCP-Protocol-Version: ${String(version)}`);
  return sessionOf(store, directories, id, scope, principal);
}

/** A live session of this scope and principal, and its scope still served; else 404. */
export async function sessionOf(
  store: SessionStore,
  directories: Directories,
  id: string,
  scope: McpScope,
  principal: Principal,
): Promise<SessionState> {
  const session = await store.find(id);
  const serverId = scope.kind === 'server' ? scope.serverId : null;
  if (!session || session.serverId !== serverId || session.subject !== principal.subject)
    throw new McpRefusal(404, 'Session not found', CONNECTION_CLOSED);
  if (!(await directories.get(scope)))
    throw new McpRefusal(404, 'No such virtual server, or it is disabled');
  return session;
}
