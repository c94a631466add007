/**
 * Spread into a TypeORM update of what is observed rather than edited (an upstream's health or
 * sync results, a login), so that the row's `updatedAt` stays the time of its last edit: TypeORM
 * sets an `@UpdateDateColumn` to now on every update that does not name it.
 */
export const KEEP_UPDATED_AT = { updatedAt: () => 'updated_at' } as const;
