import { recordedEntry } from '../../test/fixtures/mcp-registry-server';
import { gatewayShapeOf } from './gateway-plan';
import { importChanges } from './import-diff';
import { checkServerJson } from './server-json';

const entry = (file: string) => checkServerJson(recordedEntry(file));

describe('server.json → gateway', () => {
  it('fills a remote URL template and takes the required header as the operator gives it', () => {
    const shape = gatewayShapeOf(entry('remote-weather'), {
      variables: { host: '127.0.0.1:8080' },
      headers: { authorization: 'Bearer s3cret' },
    });
    expect(shape).toEqual({
      transport: 'streamable-http',
      url: 'https://127.0.0.1:8080/mcp',
      headers: { Authorization: 'Bearer s3cret' },
      headerNames: ['Authorization'],
      variables: { host: '127.0.0.1:8080' },
    });
    expect(
      gatewayShapeOf(entry('remote-weather'), { headers: { Authorization: 'x' } }),
    ).toMatchObject({
      url: 'https://api.example.com/mcp',
    });
  });

  it('asks for a required header, and refuses names and values the entry does not declare', () => {
    expect(() => gatewayShapeOf(entry('remote-weather'), {})).toThrow(
      "The header 'Authorization' is required: give its value.",
    );
    expect(() =>
      gatewayShapeOf(entry('remote-weather'), { headers: { Authorization: 'x', 'X-Other': 'y' } }),
    ).toThrow("The entry declares no header 'X-Other' (it declares: Authorization).");
    expect(() =>
      gatewayShapeOf(entry('remote-weather'), {
        variables: { host: 'evil.com/@x?' },
        headers: { Authorization: 'x' },
      }),
    ).toThrow(/may hold only letters/);
    expect(() =>
      gatewayShapeOf(entry('remote-weather'), {
        variables: { port: '1' },
        headers: { Authorization: 'x' },
      }),
    ).toThrow("The remote has no URL variable 'port' (it has: host).");
  });

  it('keeps stored header values on a re-import that gives none', () => {
    const shape = gatewayShapeOf(
      entry('remote-weather'),
      {},
      { headers: { Authorization: 'Bearer kept' }, env: {} },
    );
    expect(shape).toMatchObject({ headers: null });
  });

  it('takes an sse remote with its defaulted header, and checks choices', () => {
    const shape = gatewayShapeOf(entry('hybrid-mcp'), { headers: { 'X-API-Key': 'k' } });
    expect(shape).toMatchObject({
      transport: 'sse',
      url: 'https://mcp.anonymous.modelcontextprotocol.io/sse',
      headers: { 'X-API-Key': 'k', 'X-Region': 'us-east-1' },
    });
    expect(() =>
      gatewayShapeOf(entry('hybrid-mcp'), { headers: { 'X-API-Key': 'k', 'X-Region': 'mars' } }),
    ).toThrow("The header 'X-Region' must be one of: us-east-1, eu-west-1, ap-southeast-1.");
    expect(gatewayShapeOf(entry('hybrid-mcp'), { remote: 1 })).toMatchObject({
      transport: 'streamable-http',
      url: 'https://mcp.anonymous.modelcontextprotocol.io/http',
      headers: {},
    });
  });

  it('launches an npm package with npx at its exact version, its env asked for', () => {
    const shape = gatewayShapeOf(entry('airtable-mcp-server-1.7.2'), {
      env: { AIRTABLE_API_KEY: 'pat' },
    });
    expect(shape).toEqual({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'airtable-mcp-server@1.7.2'],
      env: { AIRTABLE_API_KEY: 'pat' },
      envNames: ['AIRTABLE_API_KEY'],
      registryType: 'npm',
    });
    expect(() => gatewayShapeOf(entry('airtable-mcp-server-1.7.2'), {})).toThrow(
      /The environment variable 'AIRTABLE_API_KEY' is required \(Airtable personal access token/,
    );
  });

  it('launches oci with docker run, passing the env names through; refuses mcpb', () => {
    expect(
      gatewayShapeOf(entry('airtable-mcp-server-1.7.2'), {
        package: 1,
        env: { AIRTABLE_API_KEY: 'pat' },
      }),
    ).toMatchObject({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'AIRTABLE_API_KEY',
        'docker.io/domdomegg/airtable-mcp-server:1.7.2',
      ],
    });
    expect(() => gatewayShapeOf(entry('airtable-mcp-server-1.7.2'), { package: 2 })).toThrow(
      /registry type 'mcpb', which Portico does not launch/,
    );
  });

  it('launches no identifier or version a launcher would read as its own option', () => {
    const recorded = recordedEntry('airtable-mcp-server-1.7.2') as {
      packages: { identifier: string; version: string }[];
    };
    const launch = (change: (pkg: { identifier: string; version: string }) => void, at = 0) => {
      const hostile = structuredClone(recorded);
      change(hostile.packages[at]!);
      return () =>
        gatewayShapeOf(checkServerJson(hostile), {
          package: at,
          env: { AIRTABLE_API_KEY: 'pat' },
        });
    };
    for (const identifier of ['--call=id > /tmp/x;:', '-y', ' airtable', 'a b'])
      expect(launch((pkg) => (pkg.identifier = identifier))).toThrow(
        /is not a npm package identifier \(a launcher could read it as an option\)/,
      );
    expect(launch((pkg) => (pkg.version = '--registry=http://evil'))).toThrow(
      /package version '--registry=http:\/\/evil' is not a npm package version/,
    );
    expect(launch((pkg) => (pkg.identifier = '--privileged'), 1)).toThrow(
      /is not a oci package identifier/,
    );
    expect(launch((pkg) => (pkg.identifier = '@scope/airtable.mcp_server'))()).toMatchObject({
      args: ['-y', '@scope/airtable.mcp_server@1.7.2'],
    });
  });

  it('takes no runtime arguments for npx, uvx or dnx: they choose what the launcher runs', () => {
    const recorded = recordedEntry('airtable-mcp-server-1.7.2') as {
      packages: { runtimeArguments?: unknown[] }[];
    };
    const hostile = structuredClone(recorded);
    hostile.packages[0]!.runtimeArguments = [{ type: 'positional', value: '--call=id' }];
    expect(() =>
      gatewayShapeOf(checkServerJson(hostile), { package: 0, env: { AIRTABLE_API_KEY: 'pat' } }),
    ).toThrow(/has runtime arguments \(--call=id\), options of the launcher itself/);
  });

  it('keeps stored values a re-import does not give, and takes the ones it gives', () => {
    const recorded = structuredClone(recordedEntry('remote-weather')) as {
      remotes: { headers: unknown[] }[];
    };
    recorded.remotes[0]!.headers = [
      { name: 'X-A', isSecret: true },
      { name: 'X-B', isSecret: true },
    ];
    const shape = gatewayShapeOf(
      checkServerJson(recorded),
      { headers: { 'x-b': 'b2' } },
      { headers: { 'X-A': 'a1', 'X-B': 'b1' }, env: {} },
    );
    expect(shape).toMatchObject({ headers: { 'X-A': 'a1', 'X-B': 'b2' } });
  });

  it('passes named package arguments with their defaults', () => {
    expect(gatewayShapeOf(entry('hybrid-mcp'), { package: 0 })).toMatchObject({
      command: 'npx',
      args: ['-y', '@example/hybrid-mcp-server@1.5.0', '--mode', 'local'],
    });
  });

  it('refuses what cannot be connected to', () => {
    expect(() => gatewayShapeOf(entry('cyphrex-mcp'), { remote: 3 })).toThrow(
      'has no remote 3 (it has 1)',
    );
    expect(() => gatewayShapeOf(entry('cyphrex-mcp'), { remote: 0, package: 0 })).toThrow(
      'not both',
    );
  });
});

describe('server.json shape check', () => {
  it('accepts the recorded entries and refuses a description over 100 characters', () => {
    for (const file of ['airtable-mcp-server-1.7.2', 'remote-weather', 'hybrid-mcp', 'cyphrex-mcp'])
      expect(entry(file).name).toContain('/');
    expect(() => entry('decisionrules-mcp-server')).toThrow(
      'server.description must be at most 100 characters',
    );
  });

  it('refuses a name without a namespace, a latest version and a remote of another type', () => {
    const base = recordedEntry('cyphrex-mcp');
    expect(() => checkServerJson({ ...base, name: 'cyphrex' })).toThrow("must be 'namespace/name'");
    expect(() => checkServerJson({ ...base, version: 'latest' })).toThrow("not 'latest'");
    expect(() =>
      checkServerJson({ ...base, remotes: [{ type: 'websocket', url: 'wss://x' }] }),
    ).toThrow("server.remotes[0].type must be 'streamable-http' or 'sse'");
    expect(() =>
      checkServerJson({ ...base, remotes: Array(33).fill({ type: 'sse', url: 'https://x' }) }),
    ).toThrow('at most 32 items');
  });
});

describe('re-import changes', () => {
  it('lists the version, packages and launch that change, and nothing for the same entry', () => {
    const before = entry('airtable-mcp-server-1.7.2');
    const after = entry('airtable-mcp-server-1.7.3');
    const shape = gatewayShapeOf(after, {}, { headers: {}, env: { AIRTABLE_API_KEY: 'kept' } });
    const gateway = {
      entry: before,
      transport: 'stdio',
      url: null,
      command: 'npx',
      args: ['-y', 'airtable-mcp-server@1.7.2'],
    };
    const changes = importChanges(gateway, after, shape);
    expect(changes.map((change) => change.field)).toEqual(['version', 'packages', 'args']);
    expect(changes[0]).toEqual({ field: 'version', before: '1.7.2', after: '1.7.3' });
    expect(changes[2]).toEqual({
      field: 'args',
      before: '["-y","airtable-mcp-server@1.7.2"]',
      after: '["-y","airtable-mcp-server@1.7.3"]',
    });
    const same = gatewayShapeOf(before, {}, { headers: {}, env: { AIRTABLE_API_KEY: 'kept' } });
    expect(importChanges(gateway, before, same)).toEqual([]);
  });
});
