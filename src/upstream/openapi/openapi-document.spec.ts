import { readFileSync } from 'node:fs';
import { OpenApiDocumentError, parseDocument, validateDocument } from './openapi-document';

const example = (path: string) =>
  readFileSync(require.resolve(`@readme/oas-examples/${path}`), 'utf8');

describe('OpenAPI descriptions', () => {
  it('are read from JSON or YAML, 3.0 or 3.1', async () => {
    for (const path of [
      '3.0/json/petstore.json',
      '3.1/json/petstore.json',
      '3.0/yaml/petstore.yaml',
    ]) {
      const document = parseDocument(example(path));
      await expect(validateDocument(document)).resolves.toBeUndefined();
    }
  });

  it('are validated without following $refs, so a cyclic one is valid here', async () => {
    await expect(
      validateDocument(parseDocument(example('3.0/json/circular.json'))),
    ).resolves.toBeUndefined();
  });

  it('refuse Swagger 2.0 and what is not a description', () => {
    expect(() => parseDocument('{"swagger":"2.0"}')).toThrow('not OpenAPI 3.0 or 3.1');
    expect(() => parseDocument('[1]')).toThrow(OpenApiDocumentError);
    expect(() => parseDocument('{ not json')).toThrow('neither JSON nor YAML');
  });

  it('refuse a description nested too deep before anything walks it', () => {
    const deep = '{"openapi":"3.1.0","x":' + '['.repeat(5_000) + ']'.repeat(5_000) + '}';
    expect(() => parseDocument(deep)).toThrow('nests more than 200 levels deep');
  });

  it('refuse a YAML alias bomb', () => {
    const lines = ['openapi: 3.1.0', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    expect(() => parseDocument(lines.join('\n'))).toThrow(OpenApiDocumentError);
  });

  it('refuse one larger than 20 MB', () => {
    expect(() =>
      parseDocument(`{"openapi":"3.1.0","x":"${'a'.repeat(21 * 1024 * 1024)}"}`),
    ).toThrow('larger than');
  });

  it('refuse an invalid description with the validator’s first errors', async () => {
    const invalid = {
      openapi: '3.1.0',
      info: { title: 'x' },
      paths: { '/a': { get: { responses: 'no' } } },
    };
    await expect(validateDocument(invalid)).rejects.toThrow('the description is not valid OpenAPI');
  });
});
