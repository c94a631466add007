import { DataSource } from 'typeorm';
import { type INestApplicationContext } from '@nestjs/common';
import { TeamScope } from '../../src/auth/team-scope';
import { EventBus } from '../../src/events/event-bus';
import { type GatewayCreateDto } from '../../src/gateways/dto/gateway-create.dto';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { Gateway } from '../../src/gateways/gateway.entity';
import { type ServerCreateDto } from '../../src/servers/dto/server-create.dto';
import { ServersService } from '../../src/servers/servers.service';
import { type ToolDefinition } from '../../src/tools/tool-definition';
import { ToolWriter } from '../../src/tools/tool.writer';
import { Tool } from '../../src/tools/tool.entity';

let sequence = 0;

export function toolDefinition(
  name: string,
  overrides: Partial<ToolDefinition> = {},
): ToolDefinition {
  return {
    name,
    title: null,
    description: `The ${name} tool`,
    inputSchema: { type: 'object', properties: {} },
    outputSchema: null,
    annotations: null,
    meta: null,
    ...overrides,
  };
}

/** Makes records through the service layer, the way the API and sync do. */
export function factories(app: INestApplicationContext) {
  const dataSource = app.get(DataSource);
  return {
    async gateway(dto: Partial<GatewayCreateDto> = {}): Promise<Gateway> {
      sequence += 1;
      const created = await app.get(GatewaysService).create(
        {
          name: `Gateway ${sequence}`,
          url: `http://127.0.0.1:9/mcp-${sequence}-${Date.now()}`,
          ...dto,
        },
        TeamScope.ALL,
      );
      return dataSource.getRepository(Gateway).findOneByOrFail({ id: created.id });
    },

    async gatewayById(id: string): Promise<Gateway> {
      return dataSource.getRepository(Gateway).findOneByOrFail({ id });
    },

    /** Stores tools for a gateway; returns them ordered as given, skipping refused ones. */
    async tools(gateway: Gateway, definitions: (string | ToolDefinition)[]): Promise<Tool[]> {
      const normalised = definitions.map((definition) =>
        typeof definition === 'string' ? toolDefinition(definition) : definition,
      );
      const { inserted } = await dataSource.transaction((em) =>
        app.get(ToolWriter).insert(em, gateway, normalised),
      );
      await app.get(EventBus).publish({ type: 'catalog.changed', gatewayIds: [gateway.id] });
      const byName = new Map(
        (await dataSource.getRepository(Tool).findBy({ gatewayId: gateway.id })).map((tool) => [
          tool.originalName,
          tool,
        ]),
      );
      return inserted.map((tool) => byName.get(tool.originalName)!);
    },

    async server(dto: Partial<ServerCreateDto> = {}) {
      sequence += 1;
      return app.get(ServersService).create({ name: `Server ${sequence}`, ...dto }, TeamScope.ALL);
    },
  };
}
