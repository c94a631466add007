import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Gateway } from '../gateways/gateway.entity';

/** The keys of a gateway whose tombstones were dropped for room, as a filter (forgotten-keys.ts). */
@Entity({ name: 'pin_forgotten' })
export class ForgottenPins {
  @PrimaryColumn({ name: 'gateway_id', type: 'uuid', primaryKeyConstraintName: 'pin_forgotten_pk' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'pin_forgotten_gateway_fk' })
  gateway?: Gateway;

  @Column({ type: 'bytea' })
  keys!: Buffer;

  /** How many tombstones were dropped into it. */
  @Column({ type: 'integer' })
  dropped!: number;
}
