import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { configJsonSchema } from '../src/config-as-code/config-document';
import { withSettingsTables } from '../src/config/settings/settings-tables';

/**
 * Writes, from their one source each, docs/portico-config.schema.json (the sections' schemas and
 * the settings catalogue) and the README's two settings tables (the catalogue), formatted as
 * `npm run check` expects; tests check both are current.
 */
async function main(): Promise<void> {
  const root = join(__dirname, '..');
  const schemaFile = join(root, 'docs', 'portico-config.schema.json');
  const schemaOptions = { ...(await resolveConfig(schemaFile)), filepath: schemaFile };
  writeFileSync(schemaFile, await format(JSON.stringify(configJsonSchema()), schemaOptions));

  const readmeFile = join(root, 'README.md');
  const readmeOptions = { ...(await resolveConfig(readmeFile)), filepath: readmeFile };
  const readme = withSettingsTables(readFileSync(readmeFile, 'utf8'));
  writeFileSync(readmeFile, await format(readme, readmeOptions));
}

void main();
