import { Logger } from '@nestjs/common';
import { type DataSource } from 'typeorm';
import { createDataSource } from '../../src/database/data-source';
import { type EmbeddedPostgres, TEMPLATES_AGE } from '../../src/database/embedded-postgres';
import { EmbeddedUpkeep } from '../../src/database/embedded-upkeep';
import { startEmbeddedCopy } from '../support/test-database';

const ROWS = 2000;

interface TableStats {
  dead: number;
  bytes: number;
  vacuumed: boolean;
  analyzed: boolean;
  frozenAge: number;
}

async function stats(dataSource: DataSource, table: string): Promise<TableStats> {
  await dataSource.query('SELECT pg_stat_force_next_flush()');
  const [row] = await dataSource.query<TableStats[]>(
    `SELECT s.n_dead_tup::int AS dead, pg_total_relation_size(s.relid)::int AS bytes,
            s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analyzed,
            age(c.relfrozenxid) AS "frozenAge"
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.relname = $1`,
    [table],
  );
  return row!;
}

/** Rewrites every row of `churned` once: each update leaves a dead row behind. */
async function churn(dataSource: DataSource): Promise<void> {
  await dataSource.query(`UPDATE churned SET payload = md5(payload)`);
}

// The embedded database has no autovacuum worker: these check that Portico does its work.
describe('EmbeddedUpkeep', () => {
  let db: EmbeddedPostgres;
  let dataSource: DataSource;

  beforeEach(async () => {
    db = await startEmbeddedCopy();
    dataSource = await createDataSource(db.url, 2).initialize();
    await dataSource.query(`CREATE TABLE churned (id int PRIMARY KEY, payload text)`);
    await dataSource.query(
      `INSERT INTO churned SELECT i, md5(i::text) FROM generate_series(1, ${ROWS}) AS i`,
    );
  });

  afterEach(async () => {
    await dataSource.destroy();
    await db.stop();
  });

  it('vacuums a table whose rows churn, so that it stops growing, and analyzes it', async () => {
    const upkeep = new EmbeddedUpkeep(dataSource, db);
    const fresh = await stats(dataSource, 'churned');
    for (let i = 0; i < 5; i++) await churn(dataSource);
    const untended = await stats(dataSource, 'churned');
    // Nothing but the pruning of a page as it is read reclaims dead rows: the upkeep is for that.
    expect(untended.dead).toBeGreaterThan(4 * ROWS);
    expect(untended.vacuumed).toBe(false);

    await upkeep.run();
    const tended = await stats(dataSource, 'churned');
    expect(tended).toMatchObject({ dead: 0, vacuumed: true, analyzed: true });

    // As much churn again, tended after each pass, fits in the space already there (but for a
    // page or two of its indexes).
    for (let i = 0; i < 5; i++) {
      await churn(dataSource);
      await upkeep.run();
    }
    const after = await stats(dataSource, 'churned');
    expect(after.dead).toBe(0);
    expect(after.bytes - untended.bytes).toBeLessThan((untended.bytes - fresh.bytes) / 10);
  });

  it('leaves a table with too few changes alone, analyzes one that grew, and vacuums one that grew more', async () => {
    const upkeep = new EmbeddedUpkeep(dataSource, db);
    await upkeep.run();
    await dataSource.query(`UPDATE churned SET payload = 'x' WHERE id <= 10`);
    await dataSource.query(`CREATE TABLE grown (id int)`);
    await dataSource.query(`INSERT INTO grown SELECT generate_series(1, 500)`);
    await dataSource.query(`CREATE TABLE appended (id int)`);
    await dataSource.query(`INSERT INTO appended SELECT generate_series(1, 1500)`);

    await upkeep.run();
    expect(await stats(dataSource, 'churned')).toMatchObject({ dead: 10 });
    expect(await stats(dataSource, 'grown')).toMatchObject({ vacuumed: false, analyzed: true });
    // Past 1,000 inserted rows (and a fifth of the table), insert-only, it is vacuumed too.
    expect(await stats(dataSource, 'appended')).toMatchObject({ vacuumed: true, analyzed: true });
  });

  it('checkpoints every five minutes, so that the write-ahead log is recycled', async () => {
    const checkpoint = async () =>
      (
        await dataSource.query<{ lsn: string }[]>(
          `SELECT checkpoint_lsn::text AS lsn FROM pg_control_checkpoint()`,
        )
      )[0]!.lsn;
    const upkeep = new EmbeddedUpkeep(dataSource, db);
    const started = await checkpoint();
    await churn(dataSource);
    await upkeep.run();
    const first = await checkpoint();
    expect(first).not.toBe(started);

    // The next round, within five minutes, leaves it.
    await churn(dataSource);
    await upkeep.run();
    expect(await checkpoint()).toBe(first);
  });

  it('says, once an hour, that a restart is due once the template databases grow old', async () => {
    // The templates are as old as every id the test database's making took: 100 more is too old.
    const [templates] = await dataSource.query<{ age: number }[]>(TEMPLATES_AGE);
    class Impatient extends EmbeddedUpkeep {
      protected override readonly templateWarnAge = templates!.age + 100;
    }
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const upkeep = new Impatient(dataSource, db);
      await upkeep.run();
      expect(warn).not.toHaveBeenCalled();
      for (let i = 0; i < 150; i++) await dataSource.query(`SELECT txid_current()`);
      await upkeep.run();
      await upkeep.run();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(
        /template databases are \d+ transaction ids old.*Restart Portico/,
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('freezes a table whose transaction ids grew older than vacuum_freeze_table_age', async () => {
    // The threshold is 150 million ids, and a vacuum freezes the rows older than 50 million;
    // lowered here, every table is past it and every row is frozen. The embedded database has one
    // session, which every connection shares: a SET holds for all of them.
    await dataSource.query(`SET vacuum_freeze_table_age = 0`);
    await dataSource.query(`SET vacuum_freeze_min_age = 0`);
    // Each transaction that writes takes an id; txid_current() takes one without writing.
    for (let i = 0; i < 300; i++) await dataSource.query(`SELECT txid_current()`);
    const databaseAge = async () => {
      const [database] = await dataSource.query<{ age: number }[]>(
        `SELECT age(datfrozenxid) AS age FROM pg_database WHERE datname = current_database()`,
      );
      return database!.age;
    };
    expect((await stats(dataSource, 'churned')).frozenAge).toBeGreaterThanOrEqual(300);
    expect(await databaseAge()).toBeGreaterThanOrEqual(300);

    await new EmbeddedUpkeep(dataSource, db).run();
    // The round's own analyzes take an id each, so the youngest age is about their number.
    expect((await stats(dataSource, 'churned')).frozenAge).toBeLessThan(150);
    // System catalogues are frozen too, which is what lets the database's own age fall.
    expect(await databaseAge()).toBeLessThan(150);
  });
});
