import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDataDir } from './temp-dir';

/** A self-signed certificate for 127.0.0.1 and localhost: its own authority, trusted by name. */
export interface TestCertificate {
  key: string;
  cert: string;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS of a child process. */
  certPath: string;
}

let certificate: TestCertificate | undefined;

/** Made once per test file with the openssl command line (an EC key; valid for a week). */
export function testCertificate(): TestCertificate {
  if (certificate) return certificate;
  const dir = tempDataDir();
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '7',
      '-subj',
      '/CN=Portico test documents',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  certificate = {
    key: readFileSync(keyPath, 'utf8'),
    cert: readFileSync(certPath, 'utf8'),
    certPath,
  };
  return certificate;
}

/** What the server answers at one path. */
export interface DocumentResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, sent as JSON; a string or Buffer, sent as it is. */
  body?: unknown;
  /** Send the headers, then never the body. */
  stall?: boolean;
}

/**
 * An https server on loopback that serves what a test sets per path, as a client hosts its Client
 * ID Metadata Document, and records every request it gets.
 */
export interface DocumentServer {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** The paths requested, in order. */
  readonly requests: string[];
  serve(path: string, response: DocumentResponse): void;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const { key, cert } = testCertificate();
  const routes = new Map<string, DocumentResponse>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key, cert }, (request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    const body =
      typeof route.body === 'string' || Buffer.isBuffer(route.body)
        ? route.body
        : JSON.stringify(route.body ?? {});
    response.writeHead(route.status ?? 200, {
      'content-type': 'application/json',
      ...route.headers,
    });
    if (route.stall) response.flushHeaders();
    else response.end(body);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    requests,
    serve: (path, response) => routes.set(path, response),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Where the test clients of Client ID Metadata Documents say they return to. */
export const CLIENT_REDIRECT = 'http://127.0.0.1:53682/callback';

/** The metadata document a client publishes at its client_id URL. */
export function clientDocument(clientId: string, overrides: Record<string, unknown> = {}) {
  return {
    client_id: clientId,
    client_name: 'Acme Agent',
    client_uri: 'https://acme.example.com',
    redirect_uris: [CLIENT_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...overrides,
  };
}
