import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { type JsonObject } from '../common/json-value';
import { STORABLE_JSON } from '../common/untrusted-text';

/**
 * One tool a client sees for the same tool on several gateways (a server deployed per region,
 * tenant or environment): its own name, and a `target` argument that picks the member to call.
 * Its members (ConsolidatedMember) point here; this side names none of them, so that the two
 * entities do not import each other.
 */
@Entity({ name: 'consolidated_tool' })
export class ConsolidatedTool {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'consolidated_tool_pk' })
  id!: string;

  @Index('consolidated_tool_name_uq', { unique: true })
  @Column({ type: 'varchar', length: 128 })
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  /** The members' shared input schema, as it was when the tool was saved. */
  @Column({ name: 'input_schema', type: 'jsonb', transformer: STORABLE_JSON })
  inputSchema!: JsonObject;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
