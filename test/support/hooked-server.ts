import { type TestApp } from './test-app';

/** A virtual server of these tools whose hooks redact secrets from results; its MCP path. */
export async function secretRedactingServer(app: TestApp, toolIds: string[]): Promise<string> {
  const server = await app
    .api()
    .post('/api/v1/servers')
    .send({ name: 'Hooked jobs', toolIds })
    .expect(201);
  await app
    .api()
    .put(`/api/v1/servers/${server.body.id}/hooks`)
    .send({ hooks: [{ name: 'secret-redaction' }] })
    .expect(200);
  return `/servers/${server.body.id}/mcp`;
}
