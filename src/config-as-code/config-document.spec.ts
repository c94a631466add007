import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { projectRoot } from '../common/project-root';
import { renderPlan } from './config-change';
import {
  configJsonSchema,
  MAX_DOCUMENT_VALUES,
  parseConfigDocument,
  parseConfigText,
} from './config-document';
import { ConfigDocumentException } from './config-document.exception';

const EXAMPLE = `
apiVersion: portico/v1
teams:
  - name: platform
gateways:
  - name: GitHub
    url: https://github-mcp.internal/mcp
    team: platform
    auth:
      type: bearer
      token: { fromEnv: GITHUB_TOKEN }
  - name: Jira
    url: https://jira-mcp.internal/mcp
    auth:
      type: headers
      headers:
        X-API-Key: { fromFile: jira/api-key }
servers:
  - name: Support agent
    team: platform
    tools: [github-create_issue]
    toolSearch: { enabled: true, alwaysLoaded: [github-create_issue] }
`;

function validator() {
  return new Ajv2020({ strict: false }).compile(configJsonSchema());
}

describe('configuration document', () => {
  it('publishes the schema the sections generate, in docs/portico-config.schema.json', () => {
    const published: unknown = JSON.parse(
      readFileSync(join(projectRoot(), 'docs', 'portico-config.schema.json'), 'utf8'),
    );
    // When this fails, run `npm run config:schema` and commit the file.
    expect(published).toEqual(configJsonSchema());
  });

  it('accepts a document with credentials by reference, in the schema and the parser', () => {
    const validate = validator();
    const document = parseConfigText(EXAMPLE);
    expect([...document.sections.keys()]).toEqual(['teams', 'gateways', 'servers']);
    expect(validate(parseYaml(EXAMPLE))).toBe(true);
  });

  it('validates the example of the README against the published schema', () => {
    const readme = readFileSync(join(projectRoot(), 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration as code'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toBeDefined();
    expect(validator()(parseYaml(example!))).toBe(true);
    expect(parseConfigText(example!).sections.get('servers')).toHaveLength(1);
  });

  it.each([
    ['an inline token', { type: 'bearer', token: 'ghp_secret' }],
    ['an inline header value', { type: 'headers', headers: { 'X-API-Key': 'secret' } }],
    ['a reference with both sources', { type: 'bearer', token: { fromEnv: 'A', fromFile: 'b' } }],
    [
      'an inline token service secret',
      { type: 'token-exchange', tokenUrl: 'https://sts/token', clientId: 'p', clientSecret: 's' },
    ],
    [
      'a token service that is not http(s)',
      { type: 'token-exchange', tokenUrl: 'file:///etc/passwd', clientId: 'p' },
    ],
  ])('refuses %s, in the schema and the parser', (_what, auth) => {
    const document = {
      apiVersion: 'portico/v1',
      gateways: [{ name: 'GitHub', url: 'https://github-mcp.internal/mcp', auth }],
    };
    expect(validator()(document)).toBe(false);
    expect(() => parseConfigDocument(document)).toThrow(ConfigDocumentException);
  });

  it('accepts a token-exchange gateway, its secret by reference and defaults filled in', () => {
    const document = {
      apiVersion: 'portico/v1',
      gateways: [
        {
          name: 'Reports',
          url: 'https://reports.internal/mcp',
          auth: {
            type: 'token-exchange',
            tokenUrl: 'https://sso.internal/realms/company/protocol/openid-connect/token',
            clientId: 'portico',
            clientSecret: { fromEnv: 'STS_SECRET' },
            audience: 'reports',
          },
        },
      ],
    };
    expect(validator()(document)).toBe(true);
    const [gateway] = parseConfigDocument(document).sections.get('gateways') as {
      auth: Record<string, unknown>;
    }[];
    expect(gateway!.auth).toMatchObject({
      dialect: 'rfc8693',
      clientAuth: 'client_secret_basic',
      actor: false,
    });
  });

  it('refuses unknown fields and a wrong apiVersion, naming where', () => {
    expect(() =>
      parseConfigDocument({ apiVersion: 'portico/v1', servers: [{ name: 'a', tols: [] }] }),
    ).toThrow(/servers\.0/);
    expect(() => parseConfigDocument({ apiVersion: 'v2' })).toThrow(/apiVersion/);
    expect(() => parseConfigText('a: [')).toThrow(/not YAML/);
  });

  it('refuses a document of more values than any registry has before the schema walks it, and lists few of its problems', () => {
    const flood = { apiVersion: 'portico/v1', gateways: new Array(2_100_000).fill(0) };
    expect(() => parseConfigDocument(flood)).toThrow(
      `holds more than ${MAX_DOCUMENT_VALUES} values`,
    );
    const nested = {
      apiVersion: 'portico/v1',
      servers: [{ name: 's', toolIds: new Array(MAX_DOCUMENT_VALUES).fill('x') }],
    };
    expect(() => parseConfigDocument(nested)).toThrow(ConfigDocumentException);
    try {
      parseConfigDocument({ apiVersion: 'portico/v1', gateways: new Array(5_000).fill(0) });
      throw new Error('accepted');
    } catch (error) {
      expect((error as ConfigDocumentException).details?.issues).toHaveLength(100);
    }
  });

  it('refuses a name twice in a section, and two gateways of one slug', () => {
    const named =
      (key: string, names: string[], extra: object = {}) =>
      () =>
        parseConfigDocument({
          apiVersion: 'portico/v1',
          [key]: names.map((name) => ({ name, ...extra })),
        });
    expect(named('teams', ['dup', 'dup'])).toThrow("teams: 'dup' is named twice.");
    expect(named('servers', ['S', 'S'])).toThrow("servers: 'S' is named twice.");
    expect(named('gateways', ['Git Hub', 'git-hub'], { url: 'http://127.0.0.1:1/mcp' })).toThrow(
      "gateways: 'Git Hub' and 'git-hub' make the same slug 'git-hub'.",
    );
    expect(named('teams', ['a', 'A'])()).toBeDefined();
  });

  it('refuses what PostgreSQL cannot store, as the REST API does', () => {
    expect(() =>
      parseConfigDocument({
        apiVersion: 'portico/v1',
        teams: [{ name: 't', description: 'a\u0000b' }],
      }),
    ).toThrow('the document contains NUL characters (U+0000).');
    expect(() =>
      parseConfigDocument({ apiVersion: 'portico/v1', teams: [{ name: 't\uD800' }] }),
    ).toThrow('the document contains unpaired UTF-16 surrogates.');
  });

  it('leaves absent sections out, so that they are not touched', () => {
    const document = parseConfigDocument({ apiVersion: 'portico/v1', teams: [] });
    expect(document.sections.has('teams')).toBe(true);
    expect(document.sections.has('gateways')).toBe(false);
  });
});

describe('renderPlan', () => {
  it('prints creates, updates with their fields, and deletes as a diff', () => {
    const plan = renderPlan([
      {
        action: 'create',
        kind: 'team',
        name: 'platform',
        fields: [{ field: 'description', to: '' }],
      },
      {
        action: 'update',
        kind: 'server',
        name: 'Support',
        fields: [
          { field: 'enabled', from: true, to: false },
          { field: 'tools', added: ['gh-b'], removed: ['gh-a'] },
        ],
      },
      { action: 'delete', kind: 'gateway', name: 'Old', fields: [] },
    ]);
    expect(plan).toBe(
      [
        '+ team "platform"',
        '    description: ""',
        '~ server "Support"',
        '    enabled: true -> false',
        '    + tools: gh-b',
        '    - tools: gh-a',
        '- gateway "Old"',
        '',
        'Plan: 1 to create, 1 to update, 1 to delete.',
        '',
      ].join('\n'),
    );
    expect(renderPlan([])).toMatch(/^No changes/);
  });
});
