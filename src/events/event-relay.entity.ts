import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Holds event payloads too large for a PostgreSQL NOTIFY (8000 bytes) for a few minutes. */
@Entity({ name: 'event_relay' })
@Index('event_relay_created_idx', ['createdAt'])
export class EventRelay {
  @PrimaryGeneratedColumn('increment', {
    type: 'bigint',
    primaryKeyConstraintName: 'event_relay_pk',
  })
  id!: string;

  @Column({ type: 'text' })
  payload!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
