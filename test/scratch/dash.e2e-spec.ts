import request from 'supertest';
import { startTestApp } from '../support/test-app';
import { createTeam, createUser } from '../support/identities';
import { csrfOf } from '../support/admin-browser-session';
it('dash', async () => {
  const t = await startTestApp();
  const team = await createTeam(t, 'A');
  await createUser(t, 'mia', 'member', [team]);
  const agent = request.agent(t.baseUrl);
  const form = await agent.get('/admin/login');
  await agent
    .post('/admin/login')
    .type('form')
    .send({ _csrf: csrfOf(form.text), username: 'mia', password: 'a-long-user-password' });
  const r = await agent.get('/admin');
  console.log(r.status, r.text.slice(0, 500));
  await t.close();
});
