import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The last document applied from each start-up source (`CONFIG_FILE`), by hash: replicas that
 * start together with the same file apply it once, and a restart with an unchanged file not at all.
 */
@Entity({ name: 'config_apply' })
export class ConfigApply {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'config_apply_pk' })
  source!: string;

  @Column({ type: 'char', length: 64 })
  hash!: string;

  @Column({ name: 'applied_at', type: 'timestamptz' })
  appliedAt!: Date;
}
