import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Tool as McpTool } from '@modelcontextprotocol/client';
import { SERVERS, type RecordedServer } from './servers';

// Records the tools/list of each real MCP server package in servers.ts into
// bench/catalogues/recorded/<slug>.json, the catalogues the tool-search evaluation ranks over.
//   node -r ts-node/register/transpile-only bench/catalogues/record-catalogues.ts [slug ...]
// Each package runs through `npm exec` at its pinned version, install scripts off, on stdio only;
// credentials are dummies: listing tools needs none, and nothing is ever called.

const OUT = join(__dirname, 'recorded');
const TIMEOUT_MS = 120_000;

export interface RecordedCatalogue {
  slug: string;
  package: string;
  version: string;
  tools: McpTool[];
}

async function record(server: RecordedServer): Promise<RecordedCatalogue> {
  // A scratch home and working directory, so that nothing of this machine reaches the server.
  const home = mkdtempSync(join(tmpdir(), 'portico-recorder-'));
  for (const [path, content] of Object.entries(server.files ?? {})) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), content);
  }
  const transport = new StdioClientTransport({
    command: 'npm',
    args: [
      'exec',
      '--yes',
      `--package=${server.package}@${server.version}`,
      '--',
      server.bin,
      ...(server.args ?? []),
    ],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      npm_config_cache: join(process.env.HOME ?? home, '.npm'),
      npm_config_ignore_scripts: 'true',
      npm_config_update_notifier: 'false',
      ...server.env,
    },
    cwd: home,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'portico-catalogue-recorder', version: '1.0.0' });
  const timer = setTimeout(() => void transport.close(), TIMEOUT_MS);
  try {
    await client.connect(transport);
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return { slug: server.slug, package: server.package, version: server.version, tools };
  } finally {
    clearTimeout(timer);
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  mkdirSync(OUT, { recursive: true });
  for (const server of SERVERS) {
    if (only.length > 0 && !only.includes(server.slug)) continue;
    try {
      const catalogue = await record(server);
      writeFileSync(
        join(OUT, `${server.slug}.json`),
        JSON.stringify(catalogue, null, 1).concat('\n'),
      );
      console.log(`${server.slug}: ${catalogue.tools.length} tools`);
    } catch (error) {
      console.error(`${server.slug}: failed: ${String(error)}`);
      process.exitCode = 1;
    }
  }
}

if (require.main === module) void main();
