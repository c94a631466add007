import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The admin account; only a scrypt hash of its password is kept. */
@Entity({ name: 'admin_user' })
export class AdminUser {
  @PrimaryColumn({ type: 'varchar', length: 128, primaryKeyConstraintName: 'admin_user_pk' })
  username!: string;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
