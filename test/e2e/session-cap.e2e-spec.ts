import { DataSource } from 'typeorm';
import { createUser } from '../support/identities';
import { eventually, postMcp } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

const CAP = 3;

/**
 * A principal's MCP sessions are capped (`mcp.maxSessionsPerPrincipal`): one client opening
 * sessions in a loop took a replica's memory at 13 KiB a session, none of them ending for a day.
 */
describe('sessions per principal', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ settings: { mcpMaxSessionsPerPrincipal: CAP } });
  });

  afterAll(async () => {
    await t.close();
  });

  async function open(token: string): Promise<string> {
    const response = await postMcp(`${t.baseUrl}/mcp`, token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'looping', version: '1' },
      },
    });
    expect(response.status).toBe(200);
    await response.text();
    return response.headers.get('mcp-session-id')!;
  }

  async function ping(token: string, session: string): Promise<number> {
    const response = await postMcp(
      `${t.baseUrl}/mcp`,
      token,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25' },
    );
    await response.text();
    return response.status;
  }

  it("ends the principal's oldest session once it opens one past the cap, and no one else's", async () => {
    const other = await createUser(t, 'bystander', 'admin');
    const theirs = await open(other.token);
    const sessions: string[] = [];
    for (let i = 0; i < CAP + 2; i++) sessions.push(await open(t.token));

    const [first, second, ...kept] = sessions;
    for (const session of kept) expect(await ping(t.token, session)).toBe(200);
    await eventually(async () => {
      expect(await ping(t.token, first!)).toBe(404);
      expect(await ping(t.token, second!)).toBe(404);
    });
    expect(await ping(other.token, theirs)).toBe(200);
    const stored: { subject: string; count: string }[] = await t.app
      .get(DataSource)
      .query('SELECT subject, count(*) AS count FROM mcp_session GROUP BY subject ORDER BY 2');
    expect(stored.map((row) => Number(row.count))).toEqual([1, CAP]);
  });
});
