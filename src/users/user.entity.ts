import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { type Role } from '../common/roles';

export const USER_SOURCES = ['local', 'oidc'] as const;
/** Where the account comes from: a local password, or the identity provider (SSO). */
export type UserSource = (typeof USER_SOURCES)[number];

/** A person. Local users sign in with a password; SSO users through the identity provider. */
@Entity({ name: 'app_user' })
@Index('app_user_external_uq', ['externalIssuer', 'externalSubject'], { unique: true })
export class User {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'app_user_pk' })
  id!: string;

  @Index('app_user_username_uq', { unique: true })
  @Column({ type: 'varchar', length: 128 })
  username!: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200, default: '' })
  displayName!: string;

  /** scrypt, with its parameters in the string (see password-hash.ts); null for SSO users. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'varchar', length: 16, default: 'member' })
  role!: Role;

  @Column({ type: 'varchar', length: 16, default: 'local' })
  source!: UserSource;

  /** The identity provider's issuer and subject of an SSO user. */
  @Column({ name: 'external_issuer', type: 'varchar', length: 2048, nullable: true })
  externalIssuer!: string | null;

  @Column({ name: 'external_subject', type: 'varchar', length: 255, nullable: true })
  externalSubject!: string | null;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
