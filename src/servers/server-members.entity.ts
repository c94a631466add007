import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Prompt } from '../prompts/prompt.entity';
import { ResourceTemplate } from '../resources/resource-template.entity';
import { Resource } from '../resources/resource.entity';
import { Server } from './server.entity';

/** Membership of a resource in a virtual server. */
@Entity({ name: 'server_resource' })
@Index('server_resource_resource_idx', ['resourceId'])
export class ServerResource {
  @PrimaryColumn({
    name: 'server_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_resource_pk',
  })
  serverId!: string;

  @PrimaryColumn({
    name: 'resource_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_resource_pk',
  })
  resourceId!: string;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_resource_server_fk' })
  server?: Server;

  @ManyToOne(() => Resource, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'resource_id', foreignKeyConstraintName: 'server_resource_resource_fk' })
  resource?: Resource;
}

/** Membership of a resource template in a virtual server. */
@Entity({ name: 'server_resource_template' })
@Index('server_resource_template_template_idx', ['templateId'])
export class ServerResourceTemplate {
  @PrimaryColumn({
    name: 'server_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_resource_template_pk',
  })
  serverId!: string;

  @PrimaryColumn({
    name: 'template_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_resource_template_pk',
  })
  templateId!: string;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_resource_template_server_fk' })
  server?: Server;

  @ManyToOne(() => ResourceTemplate, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'template_id',
    foreignKeyConstraintName: 'server_resource_template_template_fk',
  })
  template?: ResourceTemplate;
}

/** Membership of a prompt in a virtual server. */
@Entity({ name: 'server_prompt' })
@Index('server_prompt_prompt_idx', ['promptId'])
export class ServerPrompt {
  @PrimaryColumn({ name: 'server_id', type: 'uuid', primaryKeyConstraintName: 'server_prompt_pk' })
  serverId!: string;

  @PrimaryColumn({ name: 'prompt_id', type: 'uuid', primaryKeyConstraintName: 'server_prompt_pk' })
  promptId!: string;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_prompt_server_fk' })
  server?: Server;

  @ManyToOne(() => Prompt, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'prompt_id', foreignKeyConstraintName: 'server_prompt_prompt_fk' })
  prompt?: Prompt;
}
