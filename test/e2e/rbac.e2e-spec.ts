import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { STREAMABLE_HTTP_ROUTES } from '../../src/mcp/http/mcp-paths';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { createTeam, createUser, pageSession, USER_PASSWORD } from '../support/identities';
import { serverToken } from '../support/tokens';

/**
 * Who may reach each route, written out by hand: the test fails for a route missing here, so a new
 * route cannot go unconsidered. `mcp-all` is /mcp (admins); `mcp-server` a server's endpoint
 * (anyone who may use that server); `metrics` is public to the guard and checks admin itself.
 */
/** `bearer`: any valid bearer token, MCP-only ones too (the sub-registry, which then filters). */
type Need = 'public' | 'member' | 'operator' | 'admin' | 'mcp-all' | 'mcp-server' | 'bearer';

const EXPECTED: Record<string, Need> = {
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /metrics': 'admin',
  'POST /api/v1/auth/token': 'public',
  'GET /api/v1/auth/me': 'member',
  'GET /api/v1/gateways': 'operator',
  'GET /api/v1/mcp-registry': 'operator',
  'GET /api/v1/mcp-registry/servers': 'operator',
  'GET /api/v1/mcp-registry/servers/:name/versions/:version': 'operator',
  'POST /api/v1/mcp-registry/import': 'operator',
  'GET /api/v1/skills': 'operator',
  'GET /api/v1/skills/:id': 'operator',
  'PATCH /api/v1/skills/:id': 'operator',
  'POST /api/v1/skills/:id/approve': 'operator',
  'GET /api/v1/servers/:serverId/skills': 'operator',
  'PUT /api/v1/servers/:serverId/skills': 'operator',
  'GET /admin/skills': 'operator',
  'GET /admin/skills/:id': 'operator',
  'POST /admin/skills/:id/approve': 'operator',
  'GET /admin/mcp-registry': 'operator',
  'GET /admin/mcp-registry/entry': 'operator',
  'POST /admin/mcp-registry/import': 'operator',
  'GET /registry/v0.1/servers': 'bearer',
  'GET /registry/v0.1/servers/:name/versions': 'bearer',
  'GET /registry/v0.1/servers/:name/versions/:version': 'bearer',
  'POST /api/v1/gateways': 'operator',
  'GET /api/v1/gateways/:id': 'operator',
  'GET /api/v1/gateways/:id/oauth/me': 'member',
  'DELETE /api/v1/gateways/:id/oauth/me': 'member',
  'GET /api/v1/gateways/:id/oauth/connections': 'operator',
  'DELETE /api/v1/gateways/:id/oauth/connections/shared': 'operator',
  'DELETE /api/v1/gateways/:id/oauth/connections/users/:userId': 'operator',
  'PATCH /api/v1/gateways/:id': 'operator',
  'DELETE /api/v1/gateways/:id': 'operator',
  'POST /api/v1/gateways/:id/activate': 'operator',
  'POST /api/v1/gateways/:id/deactivate': 'operator',
  'POST /api/v1/gateways/:id/sync': 'operator',
  'GET /api/v1/gateways/:id/processes': 'operator',
  'GET /api/v1/tools': 'operator',
  'GET /api/v1/tools/by-name/:name': 'operator',
  'GET /api/v1/tools/:id': 'operator',
  'PATCH /api/v1/tools/:id': 'operator',
  'POST /api/v1/tools/:id/invoke': 'operator',
  'GET /api/v1/tools/:id/pin': 'operator',
  'POST /api/v1/tools/:id/approve': 'operator',
  'POST /api/v1/tools/:id/reject': 'operator',
  'DELETE /api/v1/tools/:id/pin': 'operator',
  'GET /api/v1/prompts/:id/pin': 'operator',
  'POST /api/v1/prompts/:id/approve': 'operator',
  'POST /api/v1/prompts/:id/reject': 'operator',
  'DELETE /api/v1/prompts/:id/pin': 'operator',
  'GET /api/v1/resource-templates/:id/pin': 'operator',
  'POST /api/v1/resource-templates/:id/approve': 'operator',
  'POST /api/v1/resource-templates/:id/reject': 'operator',
  'DELETE /api/v1/resource-templates/:id/pin': 'operator',
  'GET /api/v1/quarantine': 'operator',
  'POST /api/v1/gateways/:id/pin': 'operator',
  'POST /api/v1/gateways/:id/rescan': 'operator',
  'POST /api/v1/gateways/rescan': 'admin',
  'GET /api/v1/servers': 'member',
  'POST /api/v1/servers': 'operator',
  'GET /api/v1/servers/:id': 'member',
  'PATCH /api/v1/servers/:id': 'operator',
  'DELETE /api/v1/servers/:id': 'operator',
  'POST /api/v1/servers/:id/tokens': 'member',
  'GET /api/v1/tokens': 'member',
  'POST /api/v1/tokens': 'member',
  'DELETE /api/v1/tokens/:id': 'member',
  'GET /api/v1/backup': 'admin',
  'GET /api/v1/config': 'admin',
  'PUT /api/v1/config': 'admin',
  'GET /api/v1/config/schema': 'public',
  'GET /api/v1/prompts': 'operator',
  'GET /api/v1/prompts/:id': 'operator',
  'PATCH /api/v1/prompts/:id': 'operator',
  'GET /api/v1/resources': 'operator',
  'GET /api/v1/resources/:id': 'operator',
  'PATCH /api/v1/resources/:id': 'operator',
  'GET /api/v1/resource-templates': 'operator',
  'GET /api/v1/resource-templates/:id': 'operator',
  'PATCH /api/v1/resource-templates/:id': 'operator',
  'GET /admin/prompts': 'operator',
  'GET /admin/prompts/:id': 'operator',
  'POST /admin/prompts/:id': 'operator',
  'GET /admin/resources': 'operator',
  'GET /admin/resources/:id': 'operator',
  'POST /admin/resources/:id': 'operator',
  'GET /admin/resources/templates/:id': 'operator',
  'POST /admin/resources/templates/:id': 'operator',
  'GET /api/v1/users': 'admin',
  'POST /api/v1/users': 'admin',
  'GET /api/v1/users/:id': 'admin',
  'PATCH /api/v1/users/:id': 'admin',
  'DELETE /api/v1/users/:id': 'admin',
  'GET /api/v1/teams': 'member',
  'POST /api/v1/teams': 'admin',
  'GET /api/v1/teams/:id': 'member',
  'PATCH /api/v1/teams/:id': 'admin',
  'DELETE /api/v1/teams/:id': 'admin',
  'GET /api/v1/audit': 'operator',
  'GET /api/v1/rate-limits': 'admin',
  'POST /api/v1/rate-limits': 'admin',
  'GET /api/v1/rate-limits/:id': 'admin',
  'PATCH /api/v1/rate-limits/:id': 'admin',
  'DELETE /api/v1/rate-limits/:id': 'admin',
  'GET /api/v1/policies': 'admin',
  'GET /api/v1/approvals': 'admin',
  'DELETE /api/v1/approvals/:id': 'admin',
  'POST /api/v1/policies': 'admin',
  'GET /api/v1/policies/:id': 'admin',
  'PATCH /api/v1/policies/:id': 'admin',
  'DELETE /api/v1/policies/:id': 'admin',
  'GET /api/v1/consolidated-tools': 'admin',
  'POST /api/v1/consolidated-tools': 'admin',
  'GET /api/v1/consolidated-tools/:id': 'admin',
  'PATCH /api/v1/consolidated-tools/:id': 'admin',
  'DELETE /api/v1/consolidated-tools/:id': 'admin',
  'POST /api/v1/policies/dry-run': 'admin',
  'GET /api/v1/servers/:id/hooks': 'member',
  'PUT /api/v1/servers/:id/hooks': 'operator',
  'GET /api/v1/servers/:id/tool-overrides': 'member',
  'PUT /api/v1/servers/:id/tool-overrides/:toolId': 'operator',
  'DELETE /api/v1/servers/:id/tool-overrides/:toolId': 'operator',
  'POST /mcp': 'mcp-all',
  'GET /mcp': 'mcp-all',
  'DELETE /mcp': 'mcp-all',
  'GET /sse': 'mcp-all',
  'POST /messages': 'mcp-all',
  'GET /servers/:serverId/sse': 'mcp-server',
  'POST /servers/:serverId/messages': 'mcp-server',
  'POST /servers/:serverId/mcp': 'mcp-server',
  'GET /servers/:serverId/mcp': 'mcp-server',
  'DELETE /servers/:serverId/mcp': 'mcp-server',
  'GET /admin/login': 'public',
  'POST /admin/login': 'public',
  'GET /admin/sso/start': 'public',
  'GET /admin/sso/callback': 'public',
  'POST /admin/logout': 'member',
  'GET /admin': 'member',
  'GET /admin/connections': 'member',
  'GET /admin/connections/callback': 'public',
  'GET /admin/connections/:id': 'member',
  'POST /admin/connections/:id/connect': 'member',
  'POST /admin/connections/:id/disconnect': 'member',
  'GET /admin/gateways': 'operator',
  'GET /admin/gateways/new': 'operator',
  'POST /admin/gateways': 'operator',
  'GET /admin/gateways/:id': 'operator',
  'GET /admin/gateways/:id/edit': 'operator',
  'POST /admin/gateways/:id': 'operator',
  'POST /admin/gateways/:id/activate': 'operator',
  'POST /admin/gateways/:id/deactivate': 'operator',
  'POST /admin/gateways/:id/sync': 'operator',
  'POST /admin/gateways/:id/pin': 'operator',
  'POST /admin/gateways/:id/rescan': 'operator',
  'GET /admin/quarantine': 'operator',
  'POST /admin/quarantine/rescan': 'admin',
  'POST /admin/pins/:kind/:id/approve': 'operator',
  'POST /admin/pins/:kind/:id/reject': 'operator',
  'POST /admin/pins/:kind/:id/unpin': 'operator',
  'GET /admin/gateways/:id/delete': 'operator',
  'POST /admin/gateways/:id/delete': 'operator',
  'GET /admin/tools': 'operator',
  'GET /admin/tools/:id': 'operator',
  'POST /admin/tools/:id': 'operator',
  'POST /admin/tools/:id/invoke': 'operator',
  'GET /admin/servers': 'member',
  'GET /admin/servers/new': 'operator',
  'POST /admin/servers': 'operator',
  'GET /admin/servers/:id': 'member',
  'POST /admin/servers/:id/tokens': 'member',
  'GET /admin/servers/:id/edit': 'operator',
  'POST /admin/servers/:id': 'operator',
  'GET /admin/servers/:id/delete': 'operator',
  'POST /admin/servers/:id/delete': 'operator',
  'GET /admin/tokens': 'member',
  'POST /admin/tokens': 'member',
  'POST /admin/tokens/:id/revoke': 'member',
  'GET /admin/users': 'admin',
  'GET /admin/users/new': 'admin',
  'POST /admin/users': 'admin',
  'GET /admin/users/:id/edit': 'admin',
  'POST /admin/users/:id': 'admin',
  'GET /admin/users/:id/delete': 'admin',
  'POST /admin/users/:id/delete': 'admin',
  'GET /admin/teams': 'admin',
  'GET /admin/teams/new': 'admin',
  'POST /admin/teams': 'admin',
  'GET /admin/teams/:id/edit': 'admin',
  'POST /admin/teams/:id': 'admin',
  'GET /admin/teams/:id/delete': 'admin',
  'POST /admin/teams/:id/delete': 'admin',
  'GET /admin/audit': 'operator',
  'GET /admin/audit/export': 'operator',
  'GET /admin/rate-limits': 'admin',
  'POST /admin/rate-limits': 'admin',
  'POST /admin/rate-limits/:id/delete': 'admin',
  'GET /admin/playground': 'member',
  'GET /admin/playground/tool': 'member',
  'POST /admin/playground/tool': 'member',
  'GET /admin/playground/app': 'member',
  'POST /admin/playground/app-call': 'member',
  'GET /admin/policies': 'admin',
  'GET /admin/consolidated-tools': 'admin',
  'POST /admin/consolidated-tools': 'admin',
  'POST /admin/consolidated-tools/:id/delete': 'admin',
  'POST /admin/policies': 'admin',
  'GET /admin/policies/dry-run': 'admin',
  'POST /admin/policies/dry-run': 'admin',
  'GET /admin/policies/new': 'admin',
  'GET /admin/policies/:id/edit': 'admin',
  'POST /admin/policies/:id': 'admin',
  'POST /admin/policies/:id/delete': 'admin',
  'GET /.well-known/oauth-protected-resource/mcp': 'public',
  'GET /.well-known/oauth-protected-resource/servers/:serverId/mcp': 'public',
  'GET /oauth/consent': 'member',
  'POST /oauth/consent': 'member',
  'GET /admin/*path': 'member',
  'POST /admin/*path': 'member',
};

/** Every route Nest has, from its controllers' metadata. */
function nestRoutes(t: TestApp): string[] {
  const routes: string[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!type) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path: unknown = Reflect.getMetadata(PATH_METADATA, handler);
        const method: unknown = Reflect.getMetadata(METHOD_METADATA, handler);
        if (typeof path !== 'string' || typeof method !== 'number') continue;
        const joined = `/${[base, path].filter((part) => part !== '' && part !== '/').join('/')}`;
        routes.push(`${RequestMethod[method]} ${joined}`);
      }
    }
  }
  return routes;
}

const ROLE_ORDER = ['member', 'operator', 'admin'];
const SOMEONE_ELSE = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';

function concrete(path: string): string {
  return path
    .replace(':name', 'gw-tool')
    .replace('*path', 'nothing-here')
    .replace(/:\w+/g, SOMEONE_ELSE);
}

type Caller =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string; role: string; mcpOnly: boolean }
  | { kind: 'page'; cookie: string; csrf: string; role: string; username: string };

/** Whether the caller should get through the guard to the route. */
function mayReach(need: Need, caller: Caller): boolean {
  if (need === 'public') return true;
  if (caller.kind === 'none') return false;
  const mcpOnly = caller.kind === 'bearer' && caller.mcpOnly;
  switch (need) {
    case 'bearer':
      return caller.kind === 'bearer';
    case 'mcp-all':
      return caller.kind === 'bearer' && !mcpOnly && caller.role === 'admin';
    case 'mcp-server':
      // The path names a server the scoped token was not issued for.
      return caller.kind === 'bearer' && !mcpOnly;
    case 'member':
    case 'operator':
    case 'admin':
      return !mcpOnly && ROLE_ORDER.indexOf(caller.role) >= ROLE_ORDER.indexOf(need);
  }
}

describe('every route, for every role', () => {
  let t: TestApp;
  const callers: Record<string, Caller> = {};

  beforeAll(async () => {
    t = await startTestApp();
    const team = await createTeam(t, 'Team A');
    await createUser(t, 'mia', 'member', [team]);
    await createUser(t, 'otto', 'operator', [team]);
    const member = await createUser(t, 'member-token-owner', 'member', [team]);
    const operator = await createUser(t, 'operator-token-owner', 'operator', [team]);
    const server = await t.api().post('/api/v1/servers').send({ name: 'Scoped' }).expect(201);
    callers.anonymous = { kind: 'none' };
    callers['member token'] = {
      kind: 'bearer',
      token: member.token,
      role: 'member',
      mcpOnly: false,
    };
    callers['operator token'] = {
      kind: 'bearer',
      token: operator.token,
      role: 'operator',
      mcpOnly: false,
    };
    callers['admin token'] = { kind: 'bearer', token: t.token, role: 'admin', mcpOnly: false };
    callers['server token'] = {
      kind: 'bearer',
      token: await serverToken(t, server.body.id as string),
      role: 'admin',
      mcpOnly: true,
    };
    for (const [name, username, role] of [
      ['member session', 'mia', 'member'],
      ['operator session', 'otto', 'operator'],
      ['admin session', 'admin', 'admin'],
    ] as const)
      callers[name] = { kind: 'page', ...(await signIn(username)), role, username };
  });

  afterAll(async () => {
    await t.close();
  });

  const signIn = (username: string) =>
    pageSession(t, username, username === 'admin' ? ADMIN_PASSWORD : USER_PASSWORD);

  it('knows every route Nest and the MCP handler serve, and no route that is gone', () => {
    const routes = [...nestRoutes(t), ...STREAMABLE_HTTP_ROUTES];
    expect(routes.length).toBeGreaterThan(60);
    expect([...routes].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('lets through exactly the callers each route allows, and refuses the rest', async () => {
    const wrong: string[] = [];
    for (const [route, need] of Object.entries(EXPECTED)) {
      const [method, path] = route.split(' ') as [string, string];
      const page = path === '/admin' || path.startsWith('/admin/') || path === '/oauth/consent';
      for (const [name, caller] of Object.entries(callers)) {
        // Pages take sessions and the rest bearer tokens: each only with its own kind of caller.
        if (caller.kind === 'page' ? !page : page && caller.kind !== 'none') continue;
        // The login form's CSRF token is bound to a nonce cookie: auth.e2e-spec covers it.
        if (route === 'POST /admin/login') continue;
        const status = await send(t, method, concrete(path), caller);
        // Logging out ended the session on every replica: the next routes get a new one.
        if (route === 'POST /admin/logout' && caller.kind === 'page')
          callers[name] = { ...caller, ...(await signIn(caller.username)) };
        const reached = mayReach(need, caller);
        const refused = caller.kind === 'none' ? [401, 303, 403] : [403];
        const ok = reached ? status !== 401 && status !== 403 : refused.includes(status);
        if (!ok) wrong.push(`${route} as ${name}: ${status} (${reached ? 'allowed' : 'refused'})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** An MCP request's status, read from its headers: an allowed stream would never end. */
async function mcpStatus(
  t: TestApp,
  method: string,
  path: string,
  caller: Caller,
): Promise<number> {
  const abort = new AbortController();
  const response = await fetch(`${t.baseUrl}${path}`, {
    method,
    signal: abort.signal,
    headers: {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      ...(caller.kind === 'bearer' ? { Authorization: `Bearer ${caller.token}` } : {}),
    },
    ...(method === 'POST'
      ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) }
      : {}),
  });
  abort.abort();
  return response.status;
}

async function send(t: TestApp, method: string, path: string, caller: Caller): Promise<number> {
  const verb = method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
  if (/\/(mcp|sse|messages)$/.test(path)) return mcpStatus(t, method, path, caller);
  let call = request(t.baseUrl)[verb](path);
  if (caller.kind === 'bearer') call = call.set('Authorization', `Bearer ${caller.token}`);
  if (caller.kind === 'page') {
    call = call.set('Cookie', caller.cookie);
    if (method === 'POST') return (await call.type('form').send({ _csrf: caller.csrf })).status;
  }
  return (await (method === 'GET' ? call : call.send({}))).status;
}
