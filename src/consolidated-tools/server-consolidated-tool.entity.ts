import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Server } from '../servers/server.entity';
import { ConsolidatedTool } from './consolidated-tool.entity';

/** A consolidated tool in a virtual server, as `server_tool` holds a tool. */
@Entity({ name: 'server_consolidated_tool' })
@Index('server_consolidated_tool_tool_idx', ['consolidatedToolId'])
export class ServerConsolidatedTool {
  @PrimaryColumn({
    name: 'server_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_consolidated_tool_pk',
  })
  serverId!: string;

  @PrimaryColumn({
    name: 'consolidated_tool_id',
    type: 'uuid',
    primaryKeyConstraintName: 'server_consolidated_tool_pk',
  })
  consolidatedToolId!: string;

  @ManyToOne(() => Server, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'server_id', foreignKeyConstraintName: 'server_consolidated_tool_server_fk' })
  server?: Server;

  @ManyToOne(() => ConsolidatedTool, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'consolidated_tool_id',
    foreignKeyConstraintName: 'server_consolidated_tool_tool_fk',
  })
  consolidatedTool?: ConsolidatedTool;
}
