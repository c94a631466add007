import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { type JsonObject } from '../common/json-value';
import { Gateway } from '../gateways/gateway.entity';
import { Server } from '../servers/server.entity';
import { type SkillFiles } from './skill-manifest';

/**
 * One skill an upstream lists (Skills extension): its entry as it came, and the manifest hash it
 * is pinned by. Its canonical name is built like a tool's (`gateway_slug + SEP + name`); clients
 * see its URI (behind the slug on a prefixed server).
 */
@Entity({ name: 'skill' })
@Index('skill_gateway_uri_uq', ['gatewayId', 'uri'], { unique: true })
export class Skill {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'skill_pk' })
  id!: string;

  @Column({ name: 'gateway_id', type: 'uuid' })
  gatewayId!: string;

  @ManyToOne(() => Gateway, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'gateway_id', foreignKeyConstraintName: 'skill_gateway_fk' })
  gateway?: Gateway;

  @Column({ name: 'gateway_slug', type: 'varchar', length: 64 })
  gatewaySlug!: string;

  /** The frontmatter's name: the last segment of the skill's path. */
  @Column({ type: 'varchar', length: 64 })
  name!: string;

  /** The upstream's URI of the skill's SKILL.md. */
  @Column({ type: 'text' })
  uri!: string;

  @Column({ type: 'jsonb' })
  frontmatter!: JsonObject;

  /** Every file's URI, digest and size, or `dynamic`. */
  @Column({ type: 'jsonb' })
  resources!: SkillFiles;

  @Column({ type: 'jsonb', nullable: true })
  meta!: JsonObject | null;

  @Column({ name: 'manifest_hash', type: 'varchar', length: 64 })
  manifestHash!: string;

  /** The manifest hash approved to serve; another current one holds the skill back. */
  @Column({ name: 'pinned_hash', type: 'varchar', length: 64, nullable: true })
  pinnedHash!: string | null;

  /** The manifest that was approved, to compare a held change against. */
  @Column({ name: 'pinned_resources', type: 'jsonb', nullable: true })
  pinnedResources!: SkillFiles | null;

  /** Whether the upstream serves `resources/directory/read`. */
  @Column({ name: 'directory_read', type: 'boolean', default: false })
  directoryRead!: boolean;

  /** The upstream list's cache hint when it was read (`readAt`). */
  @Column({ name: 'ttl_ms', type: 'integer', nullable: true })
  ttlMs!: number | null;

  @Column({ name: 'cache_scope', type: 'varchar', length: 8, nullable: true })
  cacheScope!: string | null;

  @Column({ name: 'read_at', type: 'timestamptz' })
  readAt!: Date;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** Membership of a skill in a virtual server. */
@Entity({ name: 'server_skill' })
@Index('server_skill_skill_idx', ['skillId'])
export class ServerSkill {
  @PrimaryColumn({ name: 'server_id', type: 'uuid', primaryKeyConstraintName: 'server_skill_pk' })
  serverId!: string;

  @PrimaryColumn({ name: 'skill_id', type: 'uuid', primaryKeyConstraintName: 'server_skill_pk' })
  skillId!: string;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_skill_server_fk' })
  server?: Server;

  @ManyToOne(() => Skill, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'skill_id', foreignKeyConstraintName: 'server_skill_skill_fk' })
  skill?: Skill;
}
