import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { refusalOf } from '../transport/message-bounds';
import { UpstreamFailure } from '../upstream-error';
import { OpenApiDocumentError } from './openapi-document';
import { buildModel, buildModelApart, MODEL_BYTES } from './openapi-model';

const petstore = readFileSync(
  require.resolve('@readme/oas-examples/3.0/json/petstore.json'),
  'utf8',
);

/** A valid description of `operations` GET operations, each with a `pad`-character text. */
function description(operations: number, pad = 400): string {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < operations; i++)
    paths[`/items${i}/{id}`] = {
      get: {
        operationId: `getItem${i}`,
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string', description: 'x'.repeat(pad) + i } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    };
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Items', version: '1' }, paths });
}

/** A model as plain values: a Map made in the worker's thread is of another realm than jest's. */
const plain = (model: { plans: Map<string, unknown> }) => ({ ...model, plans: [...model.plans] });

describe('an OpenAPI description read as tools in a thread of its own', () => {
  it('gives the model the same reading gives in place, refused operations included', async () => {
    const selection = { methods: ['GET' as const, 'POST' as const] };
    const apart = await buildModelApart(petstore, selection, 64);
    const here = await buildModel(petstore, selection, 64);
    expect(plain(apart)).toEqual(plain(here));
    expect(apart.plans.size).toBeGreaterThan(0);
    const refused = here.tools.map(refusalOf);
    expect(refused.some((reason) => reason !== null)).toBe(true);
    expect(apart.tools.map(refusalOf)).toEqual(refused);
  });

  it('refuses an invalid description with the validator’s words, and a too deep one as the upstream’s failure', async () => {
    const invalid = buildModelApart('{"openapi":"3.0.3","info":{},"paths":{}}', {}, 64);
    await expect(invalid).rejects.toThrow(OpenApiDocumentError);
    await expect(invalid).rejects.toThrow('the description is not valid OpenAPI: ');
    await expect(buildModelApart('{"openapi":"3.0.3"', {}, 64)).rejects.toThrow(
      'neither JSON nor YAML',
    );
    const tooDeep = buildModelApart(description(2), {}, 3);
    await expect(tooDeep).rejects.toThrow(UpstreamFailure);
    await expect(tooDeep).rejects.toThrow('nested more than 3 levels deep');
  });

  it('refuses a description that needs more heap than the thread has, and the process goes on', () => {
    // In a process of its own: the test runner's --max-old-space-size, a V8 flag of the whole
    // process, would set the worker's heap too. About 9 MB of text needs well over 40 MB.
    const script = `
      const { buildModelApart } = require(${JSON.stringify(require.resolve('./openapi-model'))});
      const description = ${description.toString()};
      buildModelApart(description(1500, 6000), {}, 64, { heapMb: 40, timeoutMs: 60000 })
        .then(() => 'read', (error) => error.message)
        .then(async (first) => {
          const after = await buildModelApart(description(2), {}, 64);
          console.log(JSON.stringify({ first, after: after.tools.length }));
        });`;
    const run = spawnSync(
      process.execPath,
      ['--require', 'ts-node/register/transpile-only', '--eval', script],
      { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      first: 'reading the description as tools needs more than 40 MB, past the limit',
      after: 2,
    });
  });

  it('refuses a description that takes longer than its time', async () => {
    await expect(
      buildModelApart(description(2_000), {}, 64, { heapMb: 256, timeoutMs: 1 }),
    ).rejects.toThrow('took longer than 0.001 s, past the limit');
  });

  it('refuses a description whose tools come to more than MODEL_BYTES, fanned out by $ref', async () => {
    const fan = (ref: string | null) => ({
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [
          `p${i}`,
          ref ? { $ref: `#/components/schemas/${ref}` } : { type: 'string', description: 'd' },
        ]),
      ),
    });
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 2_000; i++)
      paths[`/p${i}`] = {
        get: {
          operationId: `op${i}`,
          parameters: [{ name: 'q', in: 'query', schema: { $ref: '#/components/schemas/S0' } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } },
            },
          },
        },
      };
    const text = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'fan-out', version: '1' },
      paths,
      components: { schemas: { S0: fan('S1'), S1: fan('S2'), S2: fan(null) } },
    });
    expect(text.length).toBeLessThan(1024 * 1024);
    await expect(buildModelApart(text, {}, 64)).rejects.toThrow(
      `its tools come to more than ${MODEL_BYTES / 1024 / 1024} MiB as JSON, past the limit`,
    );
    // The next build still goes ahead.
    expect((await buildModelApart(petstore, {}, 64)).tools.length).toBeGreaterThan(0);
  }, 120_000);
});
