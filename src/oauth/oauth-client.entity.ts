import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';

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

  /** sha256 of a confidential client's secret, hex; null for public clients (PKCE only). */
  @Column({ name: 'client_secret_hash', type: 'char', length: 64, nullable: true })
  clientSecretHash!: string | null;

  @Column({ name: 'client_secret_expires_at', type: 'timestamptz', nullable: true })
  clientSecretExpiresAt!: Date | null;

  /** The registered metadata (redirect URIs, name, grant types, ...), as the client sent it. */
  @Column({ type: 'jsonb' })
  metadata!: OAuthClientMetadata;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
