import { Agent, get } from 'node:http';
import { startTestApp, type TestApp } from '../support/test-app';

function healthz(baseUrl: string, agent: Agent): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const request = get(`${baseUrl}/healthz`, { agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket }),
      );
    });
    request.on('error', reject);
  });
}

describe('keep-alive connections', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('stay open past Node’s 5 s default, so a client reusing one after a pause is not reset', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await healthz(t.baseUrl, agent)).toEqual({ status: 200, reused: false });
      await new Promise((resolve) => setTimeout(resolve, 6000));
      expect(await healthz(t.baseUrl, agent)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 20_000);
});
