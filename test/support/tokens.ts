import { TokenService } from '../../src/auth/token.service';
import { type TestApp } from './test-app';

/** A bearer token that may only use the MCP endpoints of these servers. */
export async function serverToken(t: TestApp, ...serverIds: string[]): Promise<string> {
  return t.app.get(TokenService).issue({ subject: 'agent', scope: 'server', serverIds })
    .accessToken;
}
