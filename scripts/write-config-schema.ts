import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configJsonSchema } from '../src/config-as-code/config-document';

/** Writes docs/portico-config.schema.json from the sections' schemas (a test checks it is current). */
writeFileSync(
  join(__dirname, '..', 'docs', 'portico-config.schema.json'),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
