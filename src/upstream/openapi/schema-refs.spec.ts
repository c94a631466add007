import { OperationRefused, SchemaBuilder } from './schema-refs';

const doc = (schemas: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {},
  components: { schemas },
});

describe('SchemaBuilder on hostile descriptions', () => {
  it('bound the depth of a chain of $refs', () => {
    const schemas: Record<string, unknown> = { S0: { type: 'string' } };
    for (let i = 1; i <= 100; i++)
      schemas[`S${i}`] = {
        type: 'object',
        properties: { next: { $ref: `#/components/schemas/S${i - 1}` } },
      };
    const builder = new SchemaBuilder(doc(schemas));
    expect(() => builder.schema({ $ref: '#/components/schemas/S100' })).toThrow(
      'a schema nests more than 40 levels deep',
    );
  });

  it('bound what a fan-out of $refs builds (a billion laughs)', () => {
    const schemas: Record<string, unknown> = { L0: { type: 'string' } };
    for (let i = 1; i <= 30; i++)
      schemas[`L${i}`] = {
        type: 'object',
        properties: {
          a: { $ref: `#/components/schemas/L${i - 1}` },
          b: { $ref: `#/components/schemas/L${i - 1}` },
        },
      };
    const builder = new SchemaBuilder(doc(schemas), {
      maxDepth: 100,
      maxNodes: 20_000,
      maxRefs: 100_000,
    });
    expect(() => builder.schema({ $ref: '#/components/schemas/L30' })).toThrow(OperationRefused);
  });

  it('refuse external and dangling $refs', () => {
    const builder = new SchemaBuilder(doc());
    expect(() => builder.schema({ $ref: 'https://evil.example/schema.json' })).toThrow(
      'is outside the document',
    );
    expect(() => builder.schema({ $ref: '#/components/schemas/Nope' })).toThrow(
      'points at nothing',
    );
    expect(() => builder.schema({ $ref: '#/__proto__/constructor' })).toThrow('points at nothing');
  });
});
