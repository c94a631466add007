import { createServer } from 'node:http';
import { Pool } from 'undici';

// The bench's reference floor: a reverse proxy in its own process that passes every request and
// response through to TARGET byte for byte, with no session, auth, routing, audit or parsing. No
// gateway written for Node can cost less per call than this; the bench measures it beside Portico.
// Prints its URL and serves on PORT until killed.
const target = new URL(process.env.TARGET ?? '');
const pool = new Pool(target.origin, { connections: 256 });
/** Hop-by-hop headers, which a proxy does not pass on. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const abort = new AbortController();
    // Only a client that left before its answer cancels the upstream request: aborting after
    // every answer built a DOMException, stack and all, per call (about a tenth of this proxy's CPU).
    response.on('close', () => {
      if (!response.writableFinished) abort.abort();
    });
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !HOP.has(name)),
    ) as Record<string, string>;
    pool
      .request({
        path: target.pathname,
        method: request.method as 'GET' | 'POST' | 'DELETE',
        headers,
        body: request.method === 'POST' ? Buffer.concat(chunks) : null,
        signal: abort.signal,
      })
      .then(async (upstream) => {
        response.writeHead(
          upstream.statusCode,
          Object.fromEntries(Object.entries(upstream.headers).filter(([name]) => !HOP.has(name))),
        );
        for await (const chunk of upstream.body) response.write(chunk);
        response.end();
      })
      .catch(() => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () =>
  process.stdout.write(`http://127.0.0.1:${process.env.PORT}/mcp\n`),
);
