import { Injectable } from '@nestjs/common';
import { type TeamScope } from '../auth/team-scope';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { PromptsService } from '../prompts/prompts.service';
import {
  type ResourceResponseDto,
  type ResourceTemplateResponseDto,
} from '../resources/dto/resource-response.dto';
import { ResourcesService } from '../resources/resources.service';
import { ToolsService } from '../tools/tools.service';
import { AdminCatalog, everyPage } from './admin-catalog';
import {
  type MemberPicker,
  memberPicker,
  PICKER_KINDS,
  PICKER_LIST_ALL_UP_TO,
  PICKER_SEARCH_LIMIT,
  type PickerKindName,
  type PickerSource,
} from './member-picker';
import { type ServerFormValues } from './server-form';

type ServerPickers = Record<PickerKindName, MemberPicker>;

/** A resource is picked by its prefixed URI, and described by its title or name. */
function asResource(resource: ResourceResponseDto): PickerSource {
  return {
    ...resource,
    name: resource.uri,
    description: [resource.title ?? resource.name, resource.description].filter(Boolean).join(': '),
  };
}

function asTemplate(template: ResourceTemplateResponseDto): PickerSource {
  return {
    ...template,
    name: template.uriTemplate,
    description: [template.title ?? template.name, template.description].filter(Boolean).join(': '),
  };
}

/** How a picker reads its catalogue: pages of it (optionally searched), and entries by id. */
interface PickerCatalogue {
  list(query: PageQueryDto & { q?: string }): Promise<Page<PickerSource>>;
  getMany(ids: string[]): Promise<PickerSource[]>;
}

/** The server form's four pickers, each over its own catalogue. */
@Injectable()
export class ServerPickersBuilder {
  constructor(
    private readonly tools: ToolsService,
    private readonly resources: ResourcesService,
    private readonly prompts: PromptsService,
    private readonly catalog: AdminCatalog,
  ) {}

  /**
   * The catalogues as this scope sees them: lists through the services' team filter, and entries
   * asked for by id narrowed to the gateways it sees.
   */
  private catalogues(
    scope: TeamScope,
    visible: ReadonlySet<string>,
  ): Record<PickerKindName, PickerCatalogue> {
    const seen = (items: PickerSource[]) =>
      scope.everything ? items : items.filter((item) => visible.has(item.gatewayId));
    const mapped =
      <T>(
        read: (query: PageQueryDto & { q?: string }) => Promise<Page<T>>,
        as: (item: T) => PickerSource,
      ) =>
      async (query: PageQueryDto & { q?: string }) => {
        const { items, total } = await read(query);
        return { items: items.map(as), total };
      };
    return {
      tools: {
        list: (query) => this.tools.list(query, scope),
        getMany: async (ids) => seen(await this.tools.getMany(ids)),
      },
      resources: {
        list: mapped((query) => this.resources.list(query, scope), asResource),
        getMany: async (ids) => seen((await this.resources.getMany(ids)).map(asResource)),
      },
      resourceTemplates: {
        list: mapped((query) => this.resources.listTemplates(query, scope), asTemplate),
        getMany: async (ids) => seen((await this.resources.getManyTemplates(ids)).map(asTemplate)),
      },
      prompts: {
        list: (query) => this.prompts.list(query, scope),
        getMany: async (ids) => seen(await this.prompts.getMany(ids)),
      },
    };
  }

  async build(
    values: ServerFormValues,
    queries: Record<PickerKindName, string>,
    scope: TeamScope,
  ): Promise<ServerPickers> {
    const gateways = await this.catalog.gatewayNames(scope);
    const catalogues = this.catalogues(scope, new Set(gateways.map((gateway) => gateway.id)));
    const pickers = {} as ServerPickers;
    for (const name of Object.keys(PICKER_KINDS) as PickerKindName[]) {
      const kind = PICKER_KINDS[name];
      pickers[name] = await this.picker(
        kind,
        catalogues[name],
        gateways,
        values[kind.field],
        queries[name],
      );
    }
    return pickers;
  }

  /**
   * The whole catalogue when it is small enough; otherwise the picked entries and the matches of
   * `q`, already trimmed and cut by pickerQuery().
   */
  private async picker(
    kind: MemberPicker['kind'],
    catalogue: PickerCatalogue,
    gateways: Awaited<ReturnType<AdminCatalog['gatewayNames']>>,
    selectedIds: string[],
    q: string,
  ): Promise<MemberPicker> {
    const catalogueSize = (await catalogue.list({ limit: 1, offset: 0 })).total;
    if (catalogueSize <= PICKER_LIST_ALL_UP_TO) {
      const items = await everyPage((page) => catalogue.list(page));
      return memberPicker(kind, { gateways, items, selectedIds, mode: 'all', catalogueSize });
    }
    const picked = await catalogue.getMany(selectedIds);
    const found = q
      ? await catalogue.list({ q, limit: PICKER_SEARCH_LIMIT, offset: 0 })
      : { items: [], total: 0 };
    return memberPicker(kind, {
      gateways,
      items: [...picked, ...found.items],
      selectedIds,
      mode: 'search',
      catalogueSize,
      query: q,
      matches: q ? found.total : null,
      matchesListed: found.items.length,
    });
  }
}
