import express, { urlencoded } from 'express';
import request from 'supertest';
import { oauthEndpoint } from './oauth-endpoint';
import { OAuthError, OAuthErrorCode } from './oauth-error';
import { paramsOf, requiredParam } from './oauth-params';

/** An endpoint that echoes its `name` parameter, limited to two requests per address. */
function app() {
  const server = express();
  server.use(urlencoded({ extended: false }));
  server.use(
    '/oauth/echo',
    oauthEndpoint(
      {
        methods: ['POST'],
        anyOrigin: true,
        limit: { points: 2, windowSeconds: 60, message: 'Too many echoes' },
      },
      async (req, res) => {
        const name = requiredParam(paramsOf(req), 'name');
        if (name === 'boom') throw new Error('database password leaked here');
        if (name === 'grant') throw new OAuthError(OAuthErrorCode.InvalidGrant, 'No such grant');
        res.json({ name });
      },
    ),
  );
  return server;
}

describe('oauthEndpoint', () => {
  it('answers, never cached, and any origin may read it', async () => {
    const response = await request(app()).post('/oauth/echo').type('form').send({ name: 'a' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ name: 'a' });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers OAuth errors as JSON with their status, and hides what it did not expect', async () => {
    const server = app();
    const missing = await request(server).post('/oauth/echo').type('form').send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: 'name is required',
    });
    const twice = await request(server).post('/oauth/echo').type('form').send('name=a&name=b');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toBe('invalid_request');
    const unexpected = await request(app()).post('/oauth/echo').type('form').send({ name: 'boom' });
    expect(unexpected.status).toBe(500);
    expect(unexpected.body).toEqual({
      error: 'server_error',
      error_description: 'Internal Server Error',
    });
    expect(unexpected.headers['cache-control']).toBe('no-store');
  });

  it('refuses another method with 405 and Allow, and answers a preflight', async () => {
    const server = app();
    const get = await request(server).get('/oauth/echo');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.body.error).toBe('method_not_allowed');
    const preflight = await request(server)
      .options('/oauth/echo')
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-headers']).toBe('content-type');
  });

  it('answers 429 with Retry-After past the limit of an address', async () => {
    const server = app();
    for (let i = 0; i < 2; i++)
      expect(
        (await request(server).post('/oauth/echo').type('form').send({ name: 'a' })).status,
      ).toBe(200);
    const limited = await request(server).post('/oauth/echo').type('form').send({ name: 'a' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: 'too_many_requests',
      error_description: 'Too many echoes',
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('leaves paths under its own to the rest of the application', async () => {
    expect((await request(app()).post('/oauth/echo/more').send({})).status).toBe(404);
  });
});
