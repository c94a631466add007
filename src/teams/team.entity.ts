import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A group of people that owns gateways and virtual servers. */
@Entity({ name: 'team' })
export class Team {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'team_pk' })
  id!: string;

  @Index('team_name_uq', { unique: true })
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
