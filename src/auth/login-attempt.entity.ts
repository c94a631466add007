import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Recent login attempts of one client and username, shared by every replica. The key is a hash, so
 * whatever was typed as a username is not stored.
 */
@Entity({ name: 'login_attempt' })
export class LoginAttempt {
  /** sha256 of client + "\0" + username, hex. */
  @PrimaryColumn({ type: 'char', length: 64, primaryKeyConstraintName: 'login_attempt_pk' })
  key!: string;

  /** Attempts since `windowStartedAt` that have not succeeded. */
  @Column({ type: 'integer' })
  attempts!: number;

  @Index('login_attempt_window_idx')
  @Column({ name: 'window_started_at', type: 'timestamptz' })
  windowStartedAt!: Date;
}
