import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthClientMetadata } from '@modelcontextprotocol/server';

/** A client registered through dynamic client registration (RFC 7591). */
@Entity({ name: 'oauth_client' })
export class OAuthClient {
  @PrimaryColumn({
    name: 'client_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'oauth_client_pk',
  })
  clientId!: string;

  /**
   * A confidential client's secret, sealed with ENCRYPTION_KEY (and compared in constant time
   * once unsealed, see endpoints/client-authentication.ts); null for public clients.
   */
  @Column({ name: 'client_secret', type: 'text', nullable: true })
  clientSecret!: string | null;

  @Column({ name: 'client_secret_expires_at', type: 'timestamptz', nullable: true })
  clientSecretExpiresAt!: Date | null;

  /** The registered metadata (redirect URIs, name, grant types, ...), as the client sent it. */
  @Column({ type: 'jsonb' })
  metadata!: OAuthClientMetadata;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
