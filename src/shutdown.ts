import { type INestApplication } from '@nestjs/common';
import { ServerSettings } from './config/slices/server.settings';
import { Draining } from './health/draining';
import { SessionRegistry } from './mcp/sessions/session-registry.service';

/**
 * Stops a replica without losing what clients have in flight: it reports itself not ready at once
 * (so nothing new is sent to it), lets the requests it holds finish within
 * SHUTDOWN_GRACE_SECONDS, ends its event streams cleanly (clients resume them with
 * `Last-Event-ID` on another replica), and then closes: upstream sessions and stdio children end,
 * connections and pools close.
 */
export async function shutDownGracefully(app: INestApplication): Promise<void> {
  app.get(Draining).begin();
  await app.get(SessionRegistry).drain(app.get(ServerSettings).shutdownGraceSeconds * 1000);
  await app.close();
}
