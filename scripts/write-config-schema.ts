import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { configJsonSchema } from '../src/config-as-code/config-document';

/**
 * Writes docs/portico-config.schema.json from the sections' schemas (a test checks it is
 * current), formatted as `npm run check` expects.
 */
async function main(): Promise<void> {
  const file = join(__dirname, '..', 'docs', 'portico-config.schema.json');
  const options = { ...(await resolveConfig(file)), filepath: file };
  writeFileSync(file, await format(JSON.stringify(configJsonSchema()), options));
}

void main();
