import request from 'supertest';
import { ADMIN_PASSWORD } from './test-app';

type Agent = ReturnType<typeof request.agent>;

/** The CSRF token a rendered admin page carries in its forms. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('No CSRF token on the page');
  return match[1]!;
}

/** A supertest agent logged in through the login form, as a browser would be, with its CSRF token. */
export async function loginAgent(
  baseUrl: string,
  password = ADMIN_PASSWORD,
): Promise<{ agent: Agent; csrf: string }> {
  const agent = request.agent(baseUrl);
  const form = await agent.get('/admin/login').expect(200);
  await agent
    .post('/admin/login')
    .type('form')
    .send({ _csrf: csrfOf(form.text), username: 'admin', password })
    .expect(303)
    .expect('Location', '/admin');
  const dashboard = await agent.get('/admin').expect(200);
  return { agent, csrf: csrfOf(dashboard.text) };
}
