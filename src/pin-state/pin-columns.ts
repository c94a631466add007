import { Column } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { type Finding } from '../scanner/finding';
import { type Quarantine } from './definition-pin';

/** One of the scanner's findings on a definition, as stored with it. */
export type StoredFinding = Finding;

/**
 * The pin of a tool's, prompt's or resource template's definition (see definition-pin.ts),
 * embedded in each entity with the same column names.
 */
export class PinColumns {
  @Column({ name: 'pinned_hash', type: 'varchar', length: 64, nullable: true })
  pinnedHash!: string | null;

  @Column({ name: 'rejected_hash', type: 'varchar', length: 64, nullable: true })
  rejectedHash!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  quarantine!: Quarantine | null;

  /** The scanner's findings on the latest definition the upstream served (held or not). */
  @Column({ type: 'jsonb', nullable: true })
  findings!: StoredFinding[] | null;
}

/** The pin columns of one entry after the sync, written by key. */
export interface PinWrite {
  key: string;
  pinnedHash: string | null;
  rejectedHash: string | null;
  quarantine: Quarantine | null;
  /** Absent: as stored (the definition was not scanned again). */
  findings?: StoredFinding[] | null;
  /** Absent: as stored; set when an entry comes back disabled, as it left. */
  enabled?: boolean;
}

/**
 * The pin and `enabled` of an entry a sync inserts: the write its plan decided for it, if any, so
 * that the row is written once (a second statement per new row doubled a large first sync).
 * TypeORM's partial-entity type cannot express the free-form JSON of a quarantine, hence the cast.
 */
export function insertedPin(
  write: PinWrite | undefined,
): QueryDeepPartialEntity<{ pin: PinColumns; enabled: boolean }> {
  return {
    pin: {
      pinnedHash: write?.pinnedHash ?? null,
      rejectedHash: write?.rejectedHash ?? null,
      quarantine: write?.quarantine ?? null,
      findings: write?.findings ?? null,
    },
    enabled: write?.enabled ?? true,
  } as QueryDeepPartialEntity<{ pin: PinColumns; enabled: boolean }>;
}
