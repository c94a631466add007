import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Tool } from '../tools/tool.entity';
import { Server } from './server.entity';

/** Membership of a tool in a virtual server. */
@Entity({ name: 'server_tool' })
@Index('server_tool_tool_idx', ['toolId'])
export class ServerTool {
  @PrimaryColumn({ name: 'server_id', type: 'uuid', primaryKeyConstraintName: 'server_tool_pk' })
  serverId!: string;

  @PrimaryColumn({ name: 'tool_id', type: 'uuid', primaryKeyConstraintName: 'server_tool_pk' })
  toolId!: string;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_tool_server_fk' })
  server?: Server;

  @ManyToOne(() => Tool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tool_id', foreignKeyConstraintName: 'server_tool_tool_fk' })
  tool?: Tool;
}
