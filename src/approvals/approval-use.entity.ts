import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A sealed input-round state that has let a call through on a person's yes: its id, kept until
 * the state expires, so that no retry sent again with it runs the call a second time (SpentApprovals).
 */
@Entity({ name: 'approval_use' })
export class ApprovalUse {
  @PrimaryColumn({
    name: 'state_id',
    type: 'varchar',
    length: 32,
    primaryKeyConstraintName: 'approval_use_pk',
  })
  stateId!: string;

  @Index('approval_use_expires_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
