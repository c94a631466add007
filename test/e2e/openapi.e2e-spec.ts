import { startTestApp, type TestApp } from '../support/test-app';

interface Schema {
  properties?: Record<string, Schema & { description?: string }>;
  description?: string;
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  };

  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.api().get('/api/openapi.json').expect(200)).body;
  });

  afterAll(async () => {
    await t.close();
  });

  it('lists the contract paths', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/token',
        'GET /api/v1/gateways',
        'POST /api/v1/gateways',
        'GET /api/v1/gateways/{id}',
        'PATCH /api/v1/gateways/{id}',
        'DELETE /api/v1/gateways/{id}',
        'POST /api/v1/gateways/{id}/activate',
        'POST /api/v1/gateways/{id}/deactivate',
        'POST /api/v1/gateways/{id}/sync',
        'GET /api/v1/tools',
        'GET /api/v1/tools/{id}',
        'GET /api/v1/tools/by-name/{name}',
        'PATCH /api/v1/tools/{id}',
        'POST /api/v1/tools/{id}/invoke',
        'GET /api/v1/servers',
        'POST /api/v1/servers',
        'GET /api/v1/servers/{id}',
        'PATCH /api/v1/servers/{id}',
        'DELETE /api/v1/servers/{id}',
        'GET /api/v1/resources',
        'GET /api/v1/resources/{id}',
        'PATCH /api/v1/resources/{id}',
        'GET /api/v1/resource-templates',
        'GET /api/v1/resource-templates/{id}',
        'PATCH /api/v1/resource-templates/{id}',
        'GET /api/v1/prompts',
        'GET /api/v1/prompts/{id}',
        'PATCH /api/v1/prompts/{id}',
        'GET /healthz',
        'GET /readyz',
      ]),
    );
    expect(document.components.securitySchemes).toHaveProperty('bearer');
  });

  it('describes every DTO field', () => {
    const undocumented = Object.entries(document.components.schemas).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, property]) => !property.description)
        .map(([field]) => `${name}.${field}`),
    );
    expect(undocumented).toEqual([]);
  });

  /** Every schema in the document with where it is, walked iteratively. */
  function schemas(): [string, { type?: unknown; format?: unknown; maxLength?: unknown }][] {
    const found: [string, { type?: unknown; format?: unknown; maxLength?: unknown }][] = [];
    const pending: [string, unknown][] = [['#', document]];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [path, node] = next;
      if (typeof node !== 'object' || node === null) continue;
      found.push([path, node]);
      for (const [key, child] of Object.entries(node)) pending.push([`${path}/${key}`, child]);
    }
    return found;
  }

  // A `string | null` field reflects as Object unless its decorator names the type.
  it('types every uuid as a string, nullable or not', () => {
    const uuids = schemas().filter(([, schema]) => schema.format === 'uuid');
    expect(uuids.length).toBeGreaterThan(20);
    expect(uuids.filter(([, schema]) => schema.type !== 'string').map(([path]) => path)).toEqual(
      [],
    );
  });

  it('types every field with a string format or a length limit as a string', () => {
    const stringy = schemas().filter(
      ([, schema]) =>
        ['uuid', 'date-time', 'date', 'uri', 'email'].includes(String(schema.format)) ||
        (schema.maxLength !== undefined && schema.type !== 'array'),
    );
    expect(stringy.filter(([, schema]) => schema.type !== 'string').map(([path]) => path)).toEqual(
      [],
    );
  });

  it('never exposes credentials in a response schema', () => {
    const gateway = document.components.schemas.GatewayResponseDto!;
    const fields = Object.keys(gateway.properties!);
    expect(fields).toContain('authType');
    for (const secret of ['auth', 'authSecret', 'token', 'headers'])
      expect(fields).not.toContain(secret);
  });

  it('documents toolSearch in the server create, update and response schemas', () => {
    const { schemas } = document.components;
    const toolSearch = schemas.ServerToolSearchDto!;
    expect(Object.keys(toolSearch.properties!)).toEqual(['enabled', 'alwaysLoaded']);
    expect(toolSearch.properties!.enabled).toMatchObject({ type: 'boolean' });
    expect(toolSearch.properties!.alwaysLoaded).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect((toolSearch as { required?: string[] }).required).toEqual(['enabled', 'alwaysLoaded']);
    for (const name of ['ServerCreateDto', 'ServerUpdateDto', 'ServerResponseDto']) {
      // A described reference is written `allOf: [{ $ref }]`, as `$ref` admits no siblings.
      const property = schemas[name]!.properties!.toolSearch as {
        $ref?: string;
        allOf?: { $ref: string }[];
      };
      expect(property.$ref ?? property.allOf?.[0]?.$ref).toBe(
        '#/components/schemas/ServerToolSearchDto',
      );
    }
    const body = (method: string) =>
      (
        document.paths['/api/v1/servers' + (method === 'patch' ? '/{id}' : '')]![method] as {
          requestBody: { content: Record<string, { schema: { $ref: string } }> };
        }
      ).requestBody.content['application/json']!.schema.$ref;
    expect(body('post')).toBe('#/components/schemas/ServerCreateDto');
    expect(body('patch')).toBe('#/components/schemas/ServerUpdateDto');
  });

  it('documents resources, templates, prompts and server membership', () => {
    const { schemas } = document.components;
    const fields = (name: string) => Object.keys(schemas[name]!.properties!);
    expect(fields('ResourceResponseDto')).toEqual(
      expect.arrayContaining([
        'id',
        'uri',
        'originalUri',
        'name',
        'mimeType',
        'size',
        'gatewaySlug',
      ]),
    );
    expect(fields('ResourceTemplateResponseDto')).toEqual(
      expect.arrayContaining(['uriTemplate', 'originalUriTemplate', 'enabled']),
    );
    expect(fields('PromptResponseDto')).toEqual(
      expect.arrayContaining(['name', 'originalName', 'arguments', 'gatewayId']),
    );
    expect(fields('PromptArgumentDto')).toEqual(['name', 'description', 'required']);
    for (const name of ['ResourcePageDto', 'ResourceTemplatePageDto', 'PromptPageDto'])
      expect(fields(name)).toEqual(['items', 'total']);
    for (const name of ['ResourceUpdateDto', 'PromptUpdateDto'])
      expect(fields(name)).toEqual(['enabled']);
    for (const name of ['ServerCreateDto', 'ServerUpdateDto', 'ServerResponseDto']) {
      expect(fields(name)).toEqual(
        expect.arrayContaining(['naming', 'resourceIds', 'resourceTemplateIds', 'promptIds']),
      );
      expect(schemas[name]!.properties!.naming).toMatchObject({ enum: ['prefixed', 'original'] });
    }
  });
});
