import { type DataSource } from 'typeorm';

export interface SchemaDrift {
  up: string[];
  down: string[];
}

/** The SQL that would bring the database in line with the entities; empty when they agree. */
export async function schemaDrift(dataSource: DataSource): Promise<SchemaDrift> {
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return {
    up: sql.upQueries.map((query) => query.query),
    down: sql.downQueries.map((query) => query.query).reverse(),
  };
}
