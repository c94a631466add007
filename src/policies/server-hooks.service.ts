import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { EventBus } from '../events/event-bus';
import { Server } from '../servers/server.entity';
import { ServerErrorCode, ServerException } from '../servers/server.exception';
import { type ServerHooksDto } from './dto/server-hooks.dto';
import { type HookConfig } from './hooks/hook-config';
import { buildHooks } from './hooks/hook-registry';
import { HookConfigError } from './hooks/tool-call-hook';
import { PolicyErrorCode, PolicyException } from './policy.exception';

/** The ordered hooks of each virtual server; managed like the server itself. */
@Injectable()
export class ServerHooksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  async get(serverId: string, scope: TeamScope): Promise<ServerHooksDto> {
    const server = await this.visible(serverId, scope);
    return { hooks: server.hooks };
  }

  async replace(serverId: string, dto: ServerHooksDto, scope: TeamScope): Promise<ServerHooksDto> {
    const server = await this.visible(serverId, scope);
    scope.assertManage(server.teamId, `Server '${server.name}'`);
    const hooks: HookConfig[] = dto.hooks.map((hook) => ({
      name: hook.name,
      ...(hook.config === undefined ? {} : { config: hook.config }),
    }));
    try {
      buildHooks(hooks);
    } catch (error) {
      if (!(error instanceof HookConfigError)) throw error;
      throw new PolicyException(PolicyErrorCode.InvalidHooks, error.message);
    }
    server.hooks = hooks;
    await this.dataSource.getRepository(Server).save(server);
    await this.bus.publish({ type: 'servers.changed', serverIds: [serverId] });
    return { hooks };
  }

  private async visible(serverId: string, scope: TeamScope): Promise<Server> {
    const server = await this.dataSource.getRepository(Server).findOneBy({ id: serverId });
    if (!server || !scope.canSee(server.teamId))
      throw new ServerException(ServerErrorCode.NotFound, `Server ${serverId} does not exist.`);
    return server;
  }
}
