import request from 'supertest';
import { csrfOf } from './admin-browser-session';
import { type TestApp } from './test-app';

export const USER_PASSWORD = 'a-long-user-password';

export interface TestUser {
  id: string;
  username: string;
  /** A login token (POST /api/v1/auth/token). */
  token: string;
}

export async function createTeam(t: TestApp, name: string): Promise<string> {
  return (await t.api().post('/api/v1/teams').send({ name }).expect(201)).body.id as string;
}

/** A local user made by the admin, signed in for a token. */
export async function createUser(
  t: TestApp,
  username: string,
  role: 'admin' | 'operator' | 'member',
  teamIds: string[] = [],
): Promise<TestUser> {
  const created = await t
    .api()
    .post('/api/v1/users')
    .send({ username, password: USER_PASSWORD, role, teamIds })
    .expect(201);
  const login = await request(t.baseUrl)
    .post('/api/v1/auth/token')
    .send({ username, password: USER_PASSWORD })
    .expect(200);
  return { id: created.body.id, username, token: login.body.accessToken };
}

/**
 * An admin-pages session of a user, as a cookie header to send by hand (an agent's jar would lose
 * it to a logout), with the CSRF token its forms carry.
 */
export async function pageSession(
  t: TestApp,
  username: string,
  password = USER_PASSWORD,
): Promise<{ cookie: string; csrf: string }> {
  const agent = request.agent(t.baseUrl);
  const form = await agent.get('/admin/login').expect(200);
  const login = await agent
    .post('/admin/login')
    .type('form')
    .send({ _csrf: csrfOf(form.text), username, password })
    .expect(303);
  const cookie = [login.headers['set-cookie'] ?? []]
    .flat()
    .find((line: string) => line.startsWith('portico_session='))!
    .split(';')[0]!;
  const dashboard = await request(t.baseUrl).get('/admin').set('Cookie', cookie).expect(200);
  return { cookie, csrf: csrfOf(dashboard.text) };
}
