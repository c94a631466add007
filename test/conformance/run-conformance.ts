import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { tempDataDir } from '../support/temp-dir';

// The official MCP conformance suite (npm @modelcontextprotocol/conformance, Node 22) against
// Portico with an upstream behind it: `npm run conformance -- <upstream MCP URL> [suite args]`.
// Portico runs here on an in-memory embedded database; the upstream is registered as a gateway,
// and a virtual server with original naming holds all of its tools, resources, templates and
// prompts. The suite cannot send a bearer token, so a loopback proxy adds one to every request
// and passes everything else (Host and Origin included) through as it came.

const SUITE = '@modelcontextprotocol/conformance@0.1.16';

async function main(): Promise<void> {
  const [upstream, ...suiteArgs] = process.argv.slice(2);
  if (!upstream) throw new Error('usage: npm run conformance -- <upstream MCP URL> [suite args]');
  const password = randomBytes(12).toString('hex');
  const app = await createApp(
    loadConfig({
      DATABASE_URL: 'pglite://memory',
      DATA_DIR: tempDataDir(),
      ADMIN_PASSWORD: password,
      LOG_LEVEL: 'warn',
      SYNC_INTERVAL_SECONDS: '0',
      PORT: '0',
    }),
  );
  await app.listen(0, '127.0.0.1');
  const portico = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const proxy = await bearerProxy(portico, await token(portico, password));
  try {
    const path = await serverOf(portico, await token(portico, password), upstream);
    const url = `http://localhost:${(proxy.address() as AddressInfo).port}${path}`;
    console.log(`Portico at ${portico}; the suite talks to ${url}`);
    const code = await run('npx', [
      '-y',
      '-p',
      'node@22',
      '-p',
      SUITE,
      'conformance',
      'server',
      '--url',
      url,
      ...suiteArgs,
    ]);
    process.exitCode = code;
  } finally {
    proxy.close();
    await app.close();
  }
}

async function token(portico: string, password: string): Promise<string> {
  const response = await call(portico, '', 'POST', '/api/v1/auth/token', {
    username: 'admin',
    password,
  });
  return (response as { accessToken: string }).accessToken;
}

/** Registers the upstream and a virtual server of all it offers, under its own names. */
async function serverOf(portico: string, bearer: string, upstream: string): Promise<string> {
  const gateway = (await call(portico, bearer, 'POST', '/api/v1/gateways', {
    name: 'reference',
    url: upstream,
  })) as { id: string; status: string; lastError: string | null };
  if (gateway.status !== 'healthy')
    throw new Error(`the upstream did not sync: ${gateway.lastError}`);
  const ids = async (path: string) =>
    (
      (await call(portico, bearer, 'GET', `${path}?gatewayId=${gateway.id}&limit=500`)) as {
        items: { id: string }[];
      }
    ).items.map((item) => item.id);
  const server = (await call(portico, bearer, 'POST', '/api/v1/servers', {
    name: 'conformance',
    naming: 'original',
    toolIds: await ids('/api/v1/tools'),
    resourceIds: await ids('/api/v1/resources'),
    resourceTemplateIds: await ids('/api/v1/resource-templates'),
    promptIds: await ids('/api/v1/prompts'),
  })) as { id: string };
  return `/servers/${server.id}/mcp`;
}

async function call(base: string, bearer: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as unknown;
}

/** Forwards every request to Portico with the bearer token added, streaming both ways. */
async function bearerProxy(target: string, bearer: string): Promise<Server> {
  const { hostname, port } = new URL(target);
  const proxy = createServer((incoming: IncomingMessage, outgoing) => {
    const forwarded = httpRequest(
      {
        host: hostname,
        port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${bearer}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
