import { RegistryFixture, recordedEntry } from '../../test/fixtures/mcp-registry-server';
import { McpRegistryClient, RegistryFetchError } from './registry-client';

const LIMITS = { maxBytes: 256 * 1024, pageSize: 2, maxPages: 3, timeoutMs: 2000 };

describe('McpRegistryClient', () => {
  let registry: RegistryFixture;
  const client = (mode: string, limits = LIMITS) =>
    new McpRegistryClient(`${registry.origin}/${mode}`, limits);

  beforeAll(async () => {
    registry = await RegistryFixture.start({
      entries: [
        recordedEntry('airtable-mcp-server-1.7.2'),
        recordedEntry('airtable-mcp-server-1.7.3'),
        recordedEntry('remote-weather'),
        recordedEntry('hybrid-mcp'),
        recordedEntry('cyphrex-mcp'),
      ],
    });
  });
  afterAll(() => registry.close());

  it('reads one page with the query the v0.1 API names, and the next cursor', async () => {
    const page = await client('good').list({
      search: 'airtable',
      version: 'latest',
      updatedSince: '2025-01-01T00:00:00Z',
    });
    expect(page.servers.map((entry) => entry.server.version)).toEqual(['1.7.3']);
    expect(page.nextCursor).toBeNull();
    const asked = new URL(registry.requests.at(-1)!, 'http://x').searchParams;
    expect(Object.fromEntries(asked)).toEqual({
      limit: '2',
      search: 'airtable',
      updated_since: '2025-01-01T00:00:00Z',
      version: 'latest',
    });
  });

  it('walks pages until it has enough, within the page bound', async () => {
    const first = await client('good').walk({}, 1);
    expect(first.servers.map((entry) => entry.server.name)).toEqual([
      'io.github.domdomegg/airtable-mcp-server',
      'io.github.user/remote-weather',
    ]);
    expect(first.nextCursor).toBe('2');
    const all = await client('good').walk({}, 3);
    expect(all.servers.map((entry) => entry.server.name)).toEqual([
      'io.github.domdomegg/airtable-mcp-server',
      'io.github.user/remote-weather',
      'io.modelcontextprotocol.anonymous/hybrid-mcp',
      'io.github.getcyphrex/cyphrex-mcp',
    ]);
    expect(all.nextCursor).toBeNull();
    await expect(client('good', { ...LIMITS, maxPages: 1 }).walk({}, 10)).rejects.toThrow(
      /more than 1 pages/,
    );
  });

  it('reads one version by name and version, URL-encoded, and null for none', async () => {
    const entry = await client('good').version('io.github.domdomegg/airtable-mcp-server', '1.7.2');
    expect(entry?.server.version).toBe('1.7.2');
    expect(registry.requests.at(-1)).toBe(
      '/good/v0.1/servers/io.github.domdomegg%2Fairtable-mcp-server/versions/1.7.2',
    );
    expect(
      (await client('good').version('io.github.domdomegg/airtable-mcp-server'))?.server.version,
    ).toBe('1.7.3');
    expect(await client('good').version('io.github.nobody/nothing')).toBeNull();
    expect((await client('good').versions('io.github.domdomegg/airtable-mcp-server'))?.length).toBe(
      2,
    );
  });

  it('stops a cursor that comes back', async () => {
    await expect(client('loop').walk({}, 10)).rejects.toThrow(
      /repeated the cursor 'round-and-round': its pages loop/,
    );
  });

  it('refuses an answer past the byte cap while it streams in', async () => {
    const started = Date.now();
    const error = (await client('huge')
      .list()
      .catch((failure: unknown) => failure)) as Error;
    expect(error).toBeInstanceOf(RegistryFetchError);
    expect(error.message).toMatch(/answered more than 262144 bytes/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reads at most maxBytes for all the pages of one walk together', async () => {
    const limits = { ...LIMITS, maxBytes: 256 * 1024, pageSize: 1, maxPages: 1000 };
    await expect(client('fat', limits).walk({}, 1000)).rejects.toThrow(
      /answered more than 262144 bytes \(this request's answers together\)/,
    );
    // Two pages fit: 200 KB in all.
    expect((await client('fat', limits).walk({}, 2)).servers).toHaveLength(2);
  });

  it('refuses an answer nested past the depth before it is parsed', async () => {
    const started = Date.now();
    await expect(client('deep').list()).rejects.toThrow(
      /answered JSON nested more than 64 levels deep/,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses another version than the one asked for', async () => {
    await expect(
      client('other-version').version('io.github.domdomegg/airtable-mcp-server', '1.7.2'),
    ).rejects.toThrow(
      /answered version '1.7.3' of 'io.github.domdomegg\/airtable-mcp-server', not '1.7.2'/,
    );
    const latest = await client('other-version').version('io.github.domdomegg/airtable-mcp-server');
    expect(latest?.server.version).toBe('1.7.3');
  });

  it('says so of bad JSON and of an entry that is not a valid server.json', async () => {
    await expect(client('bad-json').list()).rejects.toThrow(/answered invalid JSON/);
    await expect(client('invalid').list()).rejects.toThrow(
      /not a valid server.json: servers\[0\]\.server\.description must be at most 100 characters/,
    );
    await expect(client('unstorable').list()).rejects.toThrow(
      /not a valid server.json: servers\[0\]\.server\.version must not contain NUL characters/,
    );
  });

  it('gives up on a registry that stops sending, within the timeout', async () => {
    const started = Date.now();
    await expect(client('slow', { ...LIMITS, timeoutMs: 300 }).list()).rejects.toThrow(
      /did not answer within 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('says so of a registry that is not there', async () => {
    await expect(client('missing').list()).rejects.toThrow(/answered 404, not 200/);
    await expect(new McpRegistryClient('http://127.0.0.1:1', LIMITS).list()).rejects.toThrow(
      /could not be reached \(ECONNREFUSED\)/,
    );
  });
});
