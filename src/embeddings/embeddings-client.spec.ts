import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  conceptVector,
  type EmbeddingsFixture,
  startEmbeddingsServer,
} from '../../test/fixtures/embeddings-server';
import { writeEndlessly } from '../../test/fixtures/endless-body';
import { EmbeddingsClient, EmbeddingsError } from './embeddings-client';

const config = (url: string) => ({
  url,
  model: 'concepts-1',
  apiKey: 'sk-secret',
  queryTimeoutMs: 100,
  indexTimeoutMs: 1000,
});

/** A server that answers every request with `body`. */
async function answering(body: string, status = 200): Promise<{ url: string; close(): void }> {
  const server = createServer((_, response) => {
    response.statusCode = status;
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => server.close(),
  };
}

describe('EmbeddingsClient', () => {
  let fixture: EmbeddingsFixture;
  beforeAll(async () => {
    fixture = await startEmbeddingsServer();
  });
  afterAll(() => fixture.close());

  it('posts model and inputs with the key, and gets unit vectors back in input order', async () => {
    const client = new EmbeddingsClient(config(fixture.url));
    const [mail, weather] = await client.embed(['send mail', 'weather'], 1000);
    expect(Array.from(mail!)).toEqual(conceptVector('send mail'));
    expect(Array.from(weather!)).toEqual(conceptVector('weather'));
    expect(fixture.requests.at(-1)).toEqual({
      authorization: 'Bearer sk-secret',
      model: 'concepts-1',
      input: ['send mail', 'weather'],
    });
    expect(await client.embed([], 1000)).toEqual([]);
  });

  it('accepts the full endpoint as the URL too', async () => {
    const client = new EmbeddingsClient(config(`${fixture.url}/embeddings`));
    expect(await client.embed(['mail'], 1000)).toHaveLength(1);
  });

  it('says timeout when the provider is slower than the budget, error when it fails', async () => {
    const client = new EmbeddingsClient(config(fixture.url));
    fixture.mode = 'slow';
    await expect(client.embed(['mail'], 50)).rejects.toMatchObject({ reason: 'timeout' });
    fixture.mode = 'down';
    await expect(client.embed(['mail'], 1000)).rejects.toMatchObject({
      reason: 'error',
      message: 'embeddings provider answered HTTP 503',
    });
    fixture.mode = 'ok';
    const nobody = new EmbeddingsClient(config('http://127.0.0.1:9/v1'));
    await expect(nobody.embed(['mail'], 1000)).rejects.toBeInstanceOf(EmbeddingsError);
  });

  it.each([
    ['not JSON', 'hello'],
    ['no data', '{}'],
    ['too few vectors', '{"data":[]}'],
    ['a vector of strings', '{"data":[{"index":0,"embedding":["a"]}]}'],
    ['an empty vector', '{"data":[{"index":0,"embedding":[]}]}'],
    ['an index out of range', '{"data":[{"index":3,"embedding":[1]}]}'],
  ])('refuses an answer with %s', async (_, body) => {
    const server = await answering(body);
    try {
      await expect(
        new EmbeddingsClient(config(server.url)).embed(['mail'], 1000),
      ).rejects.toMatchObject({
        reason: 'error',
      });
    } finally {
      server.close();
    }
  });

  it('reads an answer that never ends only to its bound', async () => {
    const server = createServer((_, response) => {
      response.write('{"data":[{"index":0,"embedding":[');
      writeEndlessly(response, Buffer.from('0,'.repeat(32 * 1024)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      await expect(new EmbeddingsClient(config(url)).embed(['mail'], 10_000)).rejects.toMatchObject(
        {
          reason: 'error',
          message: 'embeddings provider answered more than 16777216 bytes',
        },
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses vectors of different lengths in one answer', async () => {
    const server = await answering(
      '{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1]}]}',
    );
    try {
      await expect(
        new EmbeddingsClient(config(server.url)).embed(['a', 'b'], 1000),
      ).rejects.toMatchObject({ message: 'embeddings provider sent a malformed vector' });
    } finally {
      server.close();
    }
  });
});
