import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Gateway } from '../../gateways/gateway.entity';
import { STORABLE_JSON } from '../../common/untrusted-text';

/**
 * What Portico learnt about an OAuth upstream: the client it registered dynamically (RFC 7591,
 * sealed: it may hold a secret) and the discovery results (RFC 9728 and RFC 8414).
 */
@Entity({ name: 'upstream_oauth_client' })
export class UpstreamOAuthClient {
  @PrimaryColumn({
    name: 'gateway_id',
    type: 'uuid',
    primaryKeyConstraintName: 'upstream_oauth_client_pk',
  })
  gatewayId!: string;

  @OneToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'upstream_oauth_client_gateway_fk' })
  gateway?: Gateway;

  /** Sealed JSON of the registered client information; null until one was registered. */
  @Column({ name: 'client_information', type: 'text', nullable: true })
  clientInformation!: string | null;

  /** The discovery state the SDK's `auth()` saved: authorization server and its metadata. */
  @Column({ type: 'jsonb', nullable: true, transformer: STORABLE_JSON })
  discovery!: Record<string, unknown> | null;

  /** The URL of the upstream these belong to; a changed URL discards them. */
  @Column({ name: 'upstream_url', type: 'varchar', length: 2048 })
  upstreamUrl!: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
