import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import {
  admitPrompt,
  type PromptDefinition,
  promptContentHash,
} from '../prompts/prompt-definition';
import { Prompt } from '../prompts/prompt.entity';
import { PromptWriter } from '../prompts/prompt.writer';
import {
  admitResource,
  admitResourceTemplate,
  resourceContentHash,
  type ResourceTemplateDefinition,
} from '../resources/resource-definition';
import { ResourceTemplate } from '../resources/resource-template.entity';
import { Resource } from '../resources/resource.entity';
import { ResourceWriter } from '../resources/resource.writer';
import { pinSettingsOf, type PinSettingsSource } from '../pin-state/definition-pin';
import { type ScansFor } from '../pinning/definition-scans';
import { pinMemoryOf, rememberPins } from '../pinning/pin-memory';
import { NO_PINS, type PinnedKind, planPins } from '../pinning/pin-plan';
import { idsByKey, storedPins, writePins } from '../pinning/pin-writer';
import { PINNED_KINDS } from '../pinning/pinned-kinds';
import { promptRenameView, templateRenameView } from '../pinning/rename-view';
import { type GatewayRef } from '../tools/tool.writer';
import { type UpstreamCatalogue } from './catalogue.reader';
import { diffChangesCatalog, diffLists, syncReportOf } from './list.differ';
import { type ListDiff, type SyncListReport, type SyncReport } from '../sync-report/sync-report';

type OtherLists = Pick<SyncReport, 'resources' | 'resourceTemplates' | 'prompts'>;

/**
 * Applies an upstream's resources, resource templates and prompts, inside the transaction that
 * applies its tools. A list the upstream does not offer counts as empty: what was stored of it
 * goes. Its section of the report is there when the upstream offers the list or something went.
 */
@Injectable()
export class MemberListsApplier {
  constructor(
    private readonly resources: ResourceWriter,
    private readonly prompts: PromptWriter,
  ) {}

  async apply(
    em: EntityManager,
    gateway: GatewayRef & PinSettingsSource,
    upstream: UpstreamCatalogue,
    scansFor: ScansFor,
    now: Date,
  ): Promise<{ report: OtherLists; changed: boolean; tombstones: number }> {
    const settings = pinSettingsOf(gateway);
    const report: OtherLists = {};
    let changed = false;
    const note = (
      key: keyof OtherLists,
      offered: boolean,
      diff: ListDiff<unknown>,
      section: SyncListReport,
    ) => {
      if (offered || diff.removed.length > 0) report[key] = section;
      changed ||=
        diffChangesCatalog(diff) || (section.quarantined ?? section.released) !== undefined;
    };

    const resources = await diffLists(
      await this.stored(em, Resource, gateway.id, 'uri'),
      upstream.resources ?? [],
      admitResource,
      resourceContentHash,
    );
    await this.resources.remove(
      em,
      Resource,
      resources.removed.map((entry) => entry.id),
    );
    await this.resources.updateResources(em, resources.updated);
    await this.resources.insertResources(em, gateway, resources.added);
    note(
      'resources',
      upstream.resources !== undefined,
      resources,
      syncReportOf(
        resources,
        (d) => d.uri,
        resources.added.map((d) => d.uri),
        [],
        NO_PINS,
      ),
    );

    const storedTemplates = await storedPins(em, 'resource_template', gateway.id);
    const templateDiff = await diffLists(
      storedTemplates,
      upstream.resourceTemplates ?? [],
      admitResourceTemplate,
      resourceContentHash,
    );
    const templateScans = await scansFor(templateDiff);
    const templateKind: PinnedKind<ResourceTemplateDefinition> = {
      keyOf: (d) => d.uriTemplate,
      hashOf: resourceContentHash,
      scan: (d) => templateScans.template(d),
      view: templateRenameView,
    };
    const { diff: templates, ...templatePins } = await planPins(
      templateDiff,
      storedTemplates,
      templateKind,
      settings,
      now,
      await pinMemoryOf(
        em,
        PINNED_KINDS['resource-template'],
        gateway.id,
        templateDiff,
        templateKind,
      ),
    );
    await this.resources.remove(
      em,
      ResourceTemplate,
      templates.removed.map((entry) => entry.id),
    );
    await this.resources.updateTemplates(em, templates.updated);
    await this.resources.insertTemplates(em, gateway, templates.added, templatePins.writes);
    await writePins(em, 'resource_template', templatePins.writes, idsByKey(storedTemplates));
    await rememberPins(em, PINNED_KINDS['resource-template'], gateway.id, templatePins, now);
    note(
      'resourceTemplates',
      upstream.resourceTemplates !== undefined,
      templates,
      syncReportOf(
        templates,
        (d) => d.uriTemplate,
        templates.added.map((d) => d.uriTemplate),
        [],
        templatePins,
      ),
    );

    const storedPrompts = await storedPins(em, 'prompt', gateway.id);
    const promptDiff = await diffLists(
      storedPrompts,
      upstream.prompts ?? [],
      admitPrompt,
      promptContentHash,
    );
    const promptScans = await scansFor(promptDiff);
    const promptKind: PinnedKind<PromptDefinition> = {
      keyOf: (d) => d.name,
      hashOf: promptContentHash,
      scan: (d) => promptScans.prompt(d),
      view: promptRenameView,
    };
    const { diff: prompts, ...promptPins } = await planPins(
      promptDiff,
      storedPrompts,
      promptKind,
      settings,
      now,
      await pinMemoryOf(em, PINNED_KINDS.prompt, gateway.id, promptDiff, promptKind),
    );
    await this.prompts.remove(
      em,
      prompts.removed.map((entry) => entry.id),
    );
    await this.prompts.update(em, prompts.updated);
    const { inserted, conflicts } = await this.prompts.insert(
      em,
      gateway,
      prompts.added,
      promptPins.writes,
    );
    await writePins(em, 'prompt', promptPins.writes, idsByKey(storedPrompts));
    await rememberPins(em, PINNED_KINDS.prompt, gateway.id, promptPins, now);
    note(
      'prompts',
      upstream.prompts !== undefined,
      prompts,
      syncReportOf(prompts, (d) => d.name, inserted, conflicts, promptPins),
    );
    return {
      report,
      changed,
      tombstones: templatePins.tombstones.length + promptPins.tombstones.length,
    };
  }

  /** The gateway's stored entries of one kind, keyed by their upstream name or URI. */
  private async stored<T extends Resource | ResourceTemplate | Prompt>(
    em: EntityManager,
    entity: new () => T,
    gatewayId: string,
    key: 'uri' | 'uriTemplate' | 'originalName',
  ) {
    const rows = await em
      .createQueryBuilder(entity, 'entry')
      .select(['entry.id', `entry.${key}`, 'entry.contentHash'])
      .where('entry.gateway_id = :gatewayId', { gatewayId })
      .getMany();
    return rows.map((row) => ({
      id: row.id,
      key: (row as unknown as Record<typeof key, string>)[key],
      contentHash: row.contentHash,
    }));
  }
}
