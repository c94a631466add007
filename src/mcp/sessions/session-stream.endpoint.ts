import { Injectable } from '@nestjs/common';
import { Directories } from '../directory/directories.service';
import { UPSTREAM_LISTS } from '../../events/event-bus';
import { type Authorized } from '../protocol/authorized';
import { McpRefusal } from '../protocol/mcp-errors';
import { SseResponse } from '../streams/sse-response';
import { endAtExpiry } from '../streams/stream-expiry';
import { StreamQuota } from '../streams/stream-quota';
import { SessionRegistry } from './session-registry.service';
import { requestedSession, SessionStore } from './session.store';
import { parseEventId } from './stream-events.store';

/**
 * A 2025 session's own stream and its end on Streamable HTTP: GET opens the stream (or resumes one
 * from `Last-Event-ID`, on any replica), DELETE ends the session. Its requests are POSTed to
 * StreamableHttpEndpoint.
 */
@Injectable()
export class SessionStreamEndpoint {
  constructor(
    private readonly store: SessionStore,
    private readonly registry: SessionRegistry,
    private readonly directories: Directories,
    private readonly quota: StreamQuota,
  ) {}

  async get(http: Authorized): Promise<void> {
    const { request, response, scope, principal } = http;
    const session = await requestedSession(this.store, this.directories, http);
    const runtime = this.registry.obtain(session);
    if (runtime.legacy) throw new McpRefusal(405, 'This session uses the HTTP+SSE transport');
    const lastEventId = request.headers['last-event-id'];
    const resumes = typeof lastEventId === 'string' ? parseEventId(lastEventId) : null;
    if (!resumes && runtime.hasStream)
      throw new McpRefusal(409, 'This session already has a stream open here');
    // From now on the client hears of changes to its lists as they are now.
    const directory = await this.directories.get(scope);
    for (const kind of UPSTREAM_LISTS)
      if (!runtime.seen.has(kind)) runtime.seen.set(kind, directory?.version(kind) ?? '');
    this.quota.admit(principal, response);
    const sse = new SseResponse(response, { keepalive: true });
    // Ended as a changed identity ends it: the client resumes it, with a credential checked anew.
    endAtExpiry(principal, sse, () => sse.end());
    if (resumes) await runtime.resume(sse, resumes, principal);
    else runtime.openSessionStream(sse, principal);
  }

  async delete(http: Authorized): Promise<void> {
    const session = await requestedSession(this.store, this.directories, http);
    await this.store.end(session.id);
    await this.registry.close(session.id);
    http.response.writeHead(200).end();
  }
}
