import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthClientMetadata } from '@modelcontextprotocol/server';
import { STORABLE_JSON } from '../common/untrusted-text';

/**
 * A client of the embedded authorization server: registered through dynamic client registration
 * (RFC 7591, a UUID client_id), or named by the https URL of its Client ID Metadata Document, of
 * which this row is the copy last fetched.
 */
@Entity({ name: 'oauth_client' })
export class OAuthClient {
  @PrimaryColumn({
    name: 'client_id',
    type: 'varchar',
    length: 1024,
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

  /** The metadata (redirect URIs, name, grant types, ...), as registered or as the document says. */
  @Column({ type: 'jsonb', transformer: STORABLE_JSON })
  metadata!: OAuthClientMetadata;

  /**
   * For a client named by its metadata document's URL: when this copy goes stale and the document
   * is fetched again (its cache headers, within OAUTH_CIMD_MAX_CACHE_SECONDS). Null for
   * a registered client.
   */
  @Column({ name: 'document_expires_at', type: 'timestamptz', nullable: true })
  documentExpiresAt!: Date | null;

  /**
   * When a user first granted this client anything (at consent). A registered client never granted
   * anything a day after it registered is an abandoned or unauthenticated registration, and goes.
   */
  @Column({ name: 'granted_at', type: 'timestamptz', nullable: true })
  grantedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
