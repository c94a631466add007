import { type Logger } from '@nestjs/common';
import { type DataSource } from 'typeorm';

const RETRY_MS = 5000;

/**
 * Runs start-up work on the schema now, or, on a replica started with RUN_MIGRATIONS=false before
 * the migration job has run, once the migrations are in: until then the replica reports not
 * ready rather than failing to start. Returns a function that cancels a pending retry.
 */
export function whenMigrated(
  dataSource: DataSource,
  logger: Logger,
  work: () => Promise<void>,
): Promise<() => void> {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const attempt = async (): Promise<void> => {
    if (cancelled) return;
    if (await dataSource.showMigrations()) {
      logger.log('Migrations are pending; start-up work waits for them.');
      timer = setTimeout(
        () => void attempt().catch((error: unknown) => logger.error(String(error))),
        RETRY_MS,
      ).unref();
      return;
    }
    await work();
  };
  return attempt().then(() => () => {
    cancelled = true;
    clearTimeout(timer);
  });
}
