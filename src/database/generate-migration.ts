import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { EmbeddedPostgres } from './embedded-postgres';
import { createDataSource } from './data-source';
import { schemaDrift } from './schema-drift';

// Usage: npm run migration:generate -- migrations/AddSomething
// Runs the existing migrations on a scratch database (in-memory PGlite, or DATABASE_URL) and writes
// what the entities still need as a new migration.
async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: migration:generate -- migrations/<Name>');
  const name = basename(target).replace(/[^A-Za-z0-9]/g, '');
  const embedded = process.env.DATABASE_URL ? null : await EmbeddedPostgres.start(null);
  const dataSource = createDataSource(process.env.DATABASE_URL ?? embedded!.url);
  try {
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'all' });
    const drift = await schemaDrift(dataSource);
    if (drift.up.length === 0) {
      console.log('No changes: entities and migrations agree.');
      return;
    }
    const timestamp = Date.now();
    const quote = (query: string) => `    await queryRunner.query(${JSON.stringify(query)});`;
    const file = resolve(target, '..', `${timestamp}-${name}.ts`);
    writeFileSync(
      file,
      `import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class ${name}${timestamp} implements MigrationInterface {
  name = '${name}${timestamp}';

  async up(queryRunner: QueryRunner): Promise<void> {
${drift.up.map(quote).join('\n')}
  }

  async down(queryRunner: QueryRunner): Promise<void> {
${drift.down.map(quote).join('\n')}
  }
}
`,
    );
    console.log(`Wrote ${file}; add it to migrations/index.ts.`);
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
