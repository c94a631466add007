import { Init1795312241825 } from './1795312241825-Init';

/** Every migration, oldest first; the app and the migration job both run this list. */
export const MIGRATIONS = [Init1795312241825];
