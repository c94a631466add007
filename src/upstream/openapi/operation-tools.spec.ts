import { type Tool } from '@modelcontextprotocol/client';
import { operationTools, toolNameOf } from './operation-tools';
import { buildRequest } from './request-builder';
import { DEFAULT_SCHEMA_BOUNDS } from './schema-refs';
import { globToRegExp } from './openapi-selection';

const BOUNDS = { ...DEFAULT_SCHEMA_BOUNDS, maxTools: 50 };

function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}) {
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, paths, components: { schemas } };
}

const listed = (document: Record<string, unknown>, selection = {}) =>
  operationTools(document, selection, BOUNDS);

const tool = (document: Record<string, unknown>, name: string, selection = {}) =>
  listed(document, selection).tools.find((entry) => entry.name === name) as Tool;

describe('tool names', () => {
  it('come from operationId, made valid, or from the method and path', () => {
    expect(toolNameOf('repos/get-content', 'GET', '/x')).toBe('repos_get-content');
    expect(toolNameOf(undefined, 'GET', '/users/{id}')).toBe('get_users_id');
    expect(toolNameOf('  ', 'DELETE', '/users/{id}/keys/{key_id}')).toBe(
      'delete_users_id_keys_key_id',
    );
    expect(toolNameOf('ä'.repeat(300), 'GET', '/')).toBe('get');
    expect(toolNameOf('x'.repeat(300), 'GET', '/')).toHaveLength(64);
    expect(toolNameOf('_.-a.b-_.', 'GET', '/')).toBe('a.b');
  });

  it('are made in linear time from an operationId of 800,000 dots and dashes', () => {
    const started = Date.now();
    expect(toolNameOf(`x${'.-'.repeat(400_000)}y`, 'GET', '/')).toHaveLength(64);
    expect(toolNameOf(`x${'.-'.repeat(400_000)}`, 'GET', '/')).toBe('x');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('are unique: a second operation with the same name gets a suffix, in document order', () => {
    const document = doc({
      '/a': { get: { operationId: 'same', responses: {} } },
      '/b': { get: { operationId: 'same', responses: {} }, head: { operationId: 'same' } },
    });
    expect(listed(document).tools.map((entry) => entry.name)).toEqual(['same', 'same_2', 'same_3']);
  });
});

describe('selection', () => {
  const document = doc({
    '/pets': {
      get: { operationId: 'list', tags: ['pets'] },
      post: { operationId: 'create', tags: ['pets'] },
    },
    '/pets/{id}': { delete: { operationId: 'remove', tags: ['pets'] } },
    '/admin/keys': { get: { operationId: 'keys', tags: ['admin'] } },
  });
  const names = (selection: object) => listed(document, selection).tools.map((t) => t.name);

  it('takes only GET and HEAD by default', () => {
    expect(names({})).toEqual(['list', 'keys']);
  });

  it('takes writes only when the operator lists their methods', () => {
    expect(names({ methods: ['GET', 'POST', 'DELETE'] })).toEqual([
      'list',
      'create',
      'remove',
      'keys',
    ]);
  });

  it('filters by tags and path globs', () => {
    expect(names({ excludeTags: ['admin'] })).toEqual(['list']);
    expect(names({ includeTags: ['admin'] })).toEqual(['keys']);
    expect(names({ methods: ['DELETE', 'GET'], includePaths: ['/pets/*'] })).toEqual(['remove']);
    expect(names({ excludePaths: ['/admin/**'] })).toEqual(['list']);
    expect(globToRegExp('/a/*').test('/a/b/c')).toBe(false);
    expect(globToRegExp('/a/**').test('/a/b/c')).toBe(true);
  });

  it('refuses a selection past the cap on tools', () => {
    const many = doc(
      Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`/p${i}`, { get: {} }])),
    );
    expect(() => listed(many)).toThrow('the selection takes more than 50 operations');
  });
});

describe('input schemas', () => {
  const document = doc(
    {
      '/users/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        put: {
          operationId: 'update',
          summary: 'Update a user',
          description: 'Replaces <b>everything</b>.',
          parameters: [
            { $ref: '#/components/parameters/Verbose' },
            { name: 'id', in: 'query', schema: { type: 'string' } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
            { name: 'Authorization', in: 'header', schema: { type: 'string' } },
            { name: 'session', in: 'cookie', schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
          },
          responses: {
            '200': {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
            },
          },
        },
      },
    },
    {
      User: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', nullable: true },
          tags: { $ref: '#/components/schemas/Tags' },
        },
      },
      Tags: { type: 'array', items: { type: 'string' }, example: ['a'] },
    },
  );
  (document.components as Record<string, unknown>).parameters = {
    Verbose: { name: 'verbose', in: 'query', schema: { type: 'boolean' } },
  };

  it('merge path, query, header and body, with $refs resolved and the rest left out', () => {
    const update = tool(document, 'update', { methods: ['PUT'] });
    expect(update.inputSchema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        verbose: { type: 'boolean' },
        query_id: { type: 'string' },
        'X-Trace': { type: 'string' },
        body: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: ['string', 'null'] },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      required: ['id', 'body'],
    });
    expect(update.outputSchema).toMatchObject({ type: 'object', required: ['name'] });
    expect(update.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });

  it('carries the summary and description as written: HTML is the scanner’s and the pages’ to escape', () => {
    const update = tool(document, 'update', { methods: ['PUT'] });
    expect(update.title).toBe('Update a user');
    expect(update.description).toBe(
      'Update a user\n\nReplaces <b>everything</b>.\n\nPUT /users/{id}',
    );
  });

  it('builds the request from the arguments, escaped', () => {
    const { plans } = listed(document, { methods: ['PUT'] });
    const request = buildRequest(plans.get('update')!, '/api/', {
      id: 7,
      query_id: 'a b',
      verbose: true,
      'X-Trace': 't1',
      body: { name: 'n' },
    });
    expect(request).toEqual({
      method: 'PUT',
      path: '/api/users/7?verbose=true&id=a%20b',
      headers: { 'x-trace': 't1', 'content-type': 'application/json' },
      body: '{"name":"n"}',
    });
    expect(() => buildRequest(plans.get('update')!, '/', { body: {} })).toThrow('id is required');
    // An optional parameter left out is left out, whatever Object.prototype has by its name.
    const inherited = listed(
      doc({
        '/x': {
          get: {
            operationId: 'inherited',
            parameters: ['constructor', 'toString', 'valueOf'].map((name) => ({
              name,
              in: 'query',
              schema: { type: 'string' },
            })),
            responses: { '200': { description: 'ok' } },
          },
        },
      }),
    );
    expect(buildRequest(inherited.plans.get('inherited')!, '/', {})).toMatchObject({
      path: '/x',
    });
    expect(() => buildRequest(plans.get('update')!, '/', { id: 1, body: {}, evil: 1 })).toThrow(
      'unknown argument: evil',
    );
  });
});

describe('hostile descriptions', () => {
  it('refuse a cyclic schema by name, and keep the other operations', () => {
    const document = doc(
      {
        '/tree': {
          post: {
            operationId: 'plant',
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
            },
          },
          get: { operationId: 'fine' },
        },
      },
      {
        Node: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
        },
      },
    );
    const { tools, plans } = listed(document, { methods: ['GET', 'POST'] });
    expect(tools).toEqual([
      expect.objectContaining({ name: 'fine' }),
      {
        name: 'plant',
        refused: expect.stringContaining(
          'its schema refers to itself (#/components/schemas/Node → #/components/schemas/Node)',
        ),
      },
    ]);
    expect([...plans.keys()]).toEqual(['fine']);
  });

  it('drop a cyclic output schema but keep the tool', () => {
    const document = doc(
      {
        '/tree': {
          get: {
            operationId: 'tree',
            responses: {
              '200': {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
            },
          },
        },
      },
      { Node: { type: 'object', properties: { parent: { $ref: '#/components/schemas/Node' } } } },
    );
    expect(tool(document, 'tree').outputSchema).toBeUndefined();
  });

  it('take a huge description within bounds', () => {
    const paths = Object.fromEntries(
      Array.from({ length: 5_000 }, (_, i) => [
        `/r${i}/{id}`,
        {
          get: {
            operationId: `r${i}`,
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          },
        },
      ]),
    );
    const started = Date.now();
    const { tools } = operationTools(doc(paths), {}, { ...DEFAULT_SCHEMA_BOUNDS, maxTools: 5_000 });
    expect(tools).toHaveLength(5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
