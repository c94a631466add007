import { JwtService } from '@nestjs/jwt';
import request from 'supertest';
import { type TestApp } from './test-app';

/** A managed API token of the admin that may only use the MCP endpoints of these servers. */
export async function serverToken(t: TestApp, ...serverIds: string[]): Promise<string> {
  const response = await request(t.baseUrl)
    .post('/api/v1/tokens')
    .set('Authorization', `Bearer ${t.token}`)
    .send({ name: `servers ${serverIds.join(' ')}`.slice(0, 200), serverIds })
    .expect(201);
  return (response.body as { token: string }).token;
}

/** A managed API token of whoever `bearer` is, acting with `role`. */
export async function roleToken(t: TestApp, bearer: string, role: string): Promise<string> {
  const response = await request(t.baseUrl)
    .post('/api/v1/tokens')
    .set('Authorization', `Bearer ${bearer}`)
    .send({ name: `role ${role}`, role })
    .expect(201);
  return (response.body as { token: string }).token;
}

/** A token in the format issued before users existed (signed with JWT_SECRET, scope claim). */
export function legacyToken(
  t: TestApp,
  claims: { sub: string; scope: 'admin' } | { sub: string; scope: 'server'; srv: string[] },
  expiresIn = 3600,
): string {
  return new JwtService({ secret: t.config.jwtSecret }).sign(claims, {
    algorithm: 'HS256',
    issuer: 'portico',
    expiresIn,
  });
}
