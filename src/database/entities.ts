import { AdminUser } from '../auth/admin-user.entity';
import { Gateway } from '../gateways/gateway.entity';
import { ServerTool } from '../servers/server-tool.entity';
import { Server } from '../servers/server.entity';
import { Tool } from '../tools/tool.entity';

export const ENTITIES = [AdminUser, Gateway, Tool, Server, ServerTool];
