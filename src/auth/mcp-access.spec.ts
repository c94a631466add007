import { loadConfig } from '../config/load-config';
import { McpAccess, mcpTargetOf } from './mcp-access';
import { type Principal } from './principal';
import { NO_SERVER, type ServerTeams } from './server-teams';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const GLOBAL = '00000000-0000-4000-8000-00000000000c';
const TEAM_A = '00000000-0000-4000-8000-0000000000aa';

const teams = {
  teamOf: async (id: string) =>
    id === A ? TEAM_A : id === B ? 'team-b' : id === GLOBAL ? null : NO_SERVER,
} as unknown as ServerTeams;

const access = new McpAccess(
  loadConfig({
    DATA_DIR: '/nonexistent-portico-test',
    JWT_SECRET: 'x'.repeat(32),
    ENCRYPTION_KEY: '0'.repeat(64),
    PUBLIC_URL: 'https://portico.example.com',
  }),
  teams,
);

function principal(overrides: Partial<Principal>): Principal {
  return {
    subject: 'user:1',
    name: 'someone',
    userId: '1',
    role: 'member',
    teamIds: [TEAM_A],
    serverIds: null,
    audience: null,
    tokenId: null,
    source: 'login-token',
    ...overrides,
  };
}

describe('mcpTargetOf', () => {
  it('reads both transports’ paths, in any case and with a trailing slash', () => {
    expect(mcpTargetOf('/mcp')).toEqual({ kind: 'all' });
    expect(mcpTargetOf('/SSE/')).toEqual({ kind: 'all' });
    expect(mcpTargetOf('/messages')).toEqual({ kind: 'all' });
    expect(mcpTargetOf(`/servers/${A.toUpperCase()}/mcp`)).toEqual({ kind: 'server', serverId: A });
    expect(mcpTargetOf(`/servers/${A}/messages`)).toEqual({ kind: 'server', serverId: A });
    expect(mcpTargetOf('/api/v1/servers')).toBeNull();
    expect(mcpTargetOf('/mcp/extra')).toBeNull();
  });
});

describe('McpAccess', () => {
  const server = (serverId: string) => ({ kind: 'server' as const, serverId });

  it('keeps /mcp to admins', async () => {
    expect((await access.check(principal({ role: 'admin' }), { kind: 'all' })).allowed).toBe(true);
    expect(await access.check(principal({ role: 'operator' }), { kind: 'all' })).toMatchObject({
      allowed: false,
      status: 403,
    });
  });

  it('lets a user use their teams’ and global servers only', async () => {
    const member = principal({});
    expect((await access.check(member, server(A))).allowed).toBe(true);
    expect((await access.check(member, server(GLOBAL))).allowed).toBe(true);
    expect((await access.check(member, server(B))).allowed).toBe(false);
    expect((await access.check(principal({ role: 'admin', teamIds: [] }), server(B))).allowed).toBe(
      true,
    );
  });

  it('refuses another team’s server with the status of one that does not exist', async () => {
    const member = principal({});
    const missing = '00000000-0000-4000-8000-000000000000';
    expect(await access.check(member, server(B))).toMatchObject({ allowed: false, status: 404 });
    expect(await access.check(member, server(missing))).toMatchObject({
      allowed: false,
      status: 404,
    });
  });

  it('holds a server token to its servers, even an admin’s', async () => {
    const token = principal({ role: 'admin', serverIds: [B] });
    expect((await access.check(token, server(B))).allowed).toBe(true);
    expect((await access.check(token, server(GLOBAL))).allowed).toBe(false);
    expect((await access.check(token, { kind: 'all' })).allowed).toBe(false);
  });

  it('holds an OAuth token to its audience with a 401, so the client can ask for another', async () => {
    const token = principal({ role: 'admin', audience: access.resourceUrl(server(A)) });
    expect((await access.check(token, server(A))).allowed).toBe(true);
    expect(await access.check(token, server(B))).toMatchObject({
      allowed: false,
      status: 401,
      error: 'invalid_token',
    });
  });

  it('names the endpoint’s metadata in its challenge, with nothing a header may not hold', () => {
    expect(access.challenge(server(A))).toBe(
      `Bearer resource_metadata="https://portico.example.com/.well-known/oauth-protected-resource/servers/${A}/mcp"`,
    );
    expect(
      access.challenge(
        { kind: 'all' },
        { error: 'invalid_token', message: 'a "quoted" ’ \\ thing' },
      ),
    ).toBe(
      'Bearer resource_metadata="https://portico.example.com/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="a quoted   thing"',
    );
  });
});
