import { DataSource } from 'typeorm';
import { type INestApplicationContext } from '@nestjs/common';
import { TeamScope } from '../../src/auth/team-scope';
import { EventBus } from '../../src/events/event-bus';
import { type GatewayCreateDto } from '../../src/gateways/dto/gateway-create.dto';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { Gateway } from '../../src/gateways/gateway.entity';
import { type PromptDefinition } from '../../src/prompts/prompt-definition';
import { Prompt } from '../../src/prompts/prompt.entity';
import { PromptWriter } from '../../src/prompts/prompt.writer';
import {
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from '../../src/resources/resource-definition';
import { ResourceTemplate } from '../../src/resources/resource-template.entity';
import { Resource } from '../../src/resources/resource.entity';
import { ResourceWriter } from '../../src/resources/resource.writer';
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

export function templateDefinition(
  uriTemplate: string,
  overrides: Partial<ResourceTemplateDefinition> = {},
): ResourceTemplateDefinition {
  return {
    uriTemplate,
    name: uriTemplate,
    title: null,
    description: `The ${uriTemplate} template`,
    mimeType: null,
    annotations: null,
    meta: null,
    ...overrides,
  };
}

export function promptDefinition(
  name: string,
  overrides: Partial<PromptDefinition> = {},
): PromptDefinition {
  return {
    name,
    title: null,
    description: `The ${name} prompt`,
    arguments: [],
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

    /** Stores resources for a gateway through the sync's writer; returns them by URI. */
    async resources(gateway: Gateway, definitions: ResourceDefinition[]): Promise<Resource[]> {
      await dataSource.transaction((em) =>
        app.get(ResourceWriter).insertResources(em, gateway, definitions),
      );
      return dataSource
        .getRepository(Resource)
        .find({ where: { gatewayId: gateway.id }, order: { uri: 'ASC' } });
    },

    async templates(
      gateway: Gateway,
      definitions: ResourceTemplateDefinition[],
    ): Promise<ResourceTemplate[]> {
      await dataSource.transaction((em) =>
        app.get(ResourceWriter).insertTemplates(em, gateway, definitions),
      );
      return dataSource
        .getRepository(ResourceTemplate)
        .find({ where: { gatewayId: gateway.id }, order: { uriTemplate: 'ASC' } });
    },

    /** Stores prompts for a gateway; returns the gateway's prompts by upstream name. */
    async prompts(gateway: Gateway, definitions: PromptDefinition[]): Promise<Prompt[]> {
      await dataSource.transaction((em) => app.get(PromptWriter).insert(em, gateway, definitions));
      return dataSource
        .getRepository(Prompt)
        .find({ where: { gatewayId: gateway.id }, order: { originalName: 'ASC' } });
    },

    async server(dto: Partial<ServerCreateDto> = {}) {
      sequence += 1;
      return app.get(ServersService).create({ name: `Server ${sequence}`, ...dto }, TeamScope.ALL);
    },
  };
}
