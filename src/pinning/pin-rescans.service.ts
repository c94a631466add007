import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { actor, AuditTrail } from '../audit/audit-trail.service';
import { type Principal } from '../auth/principal';
import { type TeamScope } from '../auth/team-scope';
import { EventBus } from '../events/event-bus';
import { Gateway } from '../gateways/gateway.entity';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { outsideRequest } from '../observability/request-context';
import { type PromptDefinition } from '../prompts/prompt-definition';
import { PromptWriter } from '../prompts/prompt.writer';
import { type ResourceTemplateDefinition } from '../resources/resource-definition';
import { ResourceWriter } from '../resources/resource.writer';
import { type ToolDefinition } from '../tools/tool-definition';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { type JsonObject } from '../common/json-value';
import { ToolWriter } from '../tools/tool.writer';
import { pinSettingsOf } from '../pin-state/definition-pin';
import { type GatewayScans, DefinitionScans } from './definition-scans';
import { type PinGatewayResultDto } from './dto/pin-review.dto';
import {
  type RescanEntryDto,
  type RescanPageDto,
  type RescanResultDto,
} from './dto/pin-rescan.dto';
import { type DefinitionWriters, writeHeldDefinition } from './held-definition';
import { pinAllOf } from './pin-all';
import { type StoredFinding } from '../pin-state/pin-columns';
import { type PinWrite } from '../pin-state/pin-columns';
import { rejudgePin } from './pin-rejudge';
import { writePins } from './pin-writer';
import { PIN_KINDS, PINNED_KINDS, type PinKind } from './pinned-kinds';

/** What judging one gateway's definitions again did, to answer with and to audit. */
export interface Rescan extends RescanResultDto {
  teamId: string | null;
  /** Entries pinned afterwards, when pinning was switched on. */
  pinned: PinGatewayResultDto | null;
}

/** Why a gateway's definitions were judged again, as the audit trail says it. */
export type RescanTrigger = 'rescan' | 'settings';

/**
 * Judges every tool, prompt and resource template of a gateway again, at once: when its pinning
 * settings change (REST, admin form, configuration document), and when an operator asks for it
 * after the scanner's rules changed. Each definition is scanned again and judged as the settings
 * say now (pin-rejudge.ts); each entry held or let through is audited, and every replica told.
 */
@Injectable()
export class PinRescans {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly scans: DefinitionScans,
    private readonly tools: ToolWriter,
    private readonly prompts: PromptWriter,
    private readonly resources: ResourceWriter,
    private readonly bus: EventBus,
    private readonly audit: AuditTrail,
  ) {}

  private get writers(): DefinitionWriters {
    return { tools: this.tools, prompts: this.prompts, resources: this.resources };
  }

  /**
   * Inside the caller's transaction, which holds the gateway's row lock (the lock a sync takes
   * before it reads pins, so neither sees the other half done). `pinAll`: pinning was switched
   * on, and what is not held is then pinned as it is.
   */
  async rejudgeIn(
    em: EntityManager,
    gateway: Gateway,
    options: { pinAll: boolean },
  ): Promise<Rescan> {
    const settings = pinSettingsOf(gateway);
    const now = new Date();
    const rows = await em.query<{ name: string }[]>(
      'SELECT original_name AS name FROM tool WHERE gateway_id = $1',
      [gateway.id],
    );
    const scans = await this.scans.everything(
      em,
      gateway,
      rows.map((row) => row.name),
    );
    const rescan: Rescan = {
      gatewayId: gateway.id,
      gatewaySlug: gateway.slug,
      teamId: gateway.teamId,
      scanned: 0,
      withFindings: 0,
      quarantined: [],
      released: [],
      pinned: null,
    };
    for (const kind of PIN_KINDS) {
      const spec = PINNED_KINDS[kind];
      const entries = await em.getRepository(spec.entity).find({
        where: { gatewayId: gateway.id },
        order: { id: 'ASC' },
      });
      const writes: PinWrite[] = [];
      const ids = new Map<string, string>();
      for (const entry of entries) {
        const latest = entry.pin.quarantine?.held?.definition ?? spec.definitionOf(entry);
        const found = scanOf(scans, kind, latest);
        const judged = rejudgePin(
          { contentHash: entry.contentHash, ...entry.pin },
          found,
          settings,
          now,
        );
        if (judged.serve) await writeHeldDefinition(this.writers, em, spec, entry.id, judged.serve);
        const key = spec.keyOf(entry);
        writes.push({ key, ...judged.pin });
        ids.set(key, entry.id);
        rescan.scanned += 1;
        if (found.length > 0) rescan.withFindings += 1;
        const named: RescanEntryDto = {
          kind,
          id: entry.id,
          name: spec.nameFor(this.names, gateway.slug, key),
          reason: judged.pin.quarantine?.reason ?? null,
        };
        if (judged.event === 'held') rescan.quarantined.push(named);
        if (judged.event === 'released') rescan.released.push(named);
      }
      await writePins(em, spec.table, writes, ids);
    }
    if (options.pinAll) rescan.pinned = await pinAllOf(em, gateway.id);
    return rescan;
  }

  /**
   * After the commit: audits each entry held or let through (under the gateway's team, outside the
   * request, which stays in the trail as itself) and the rescan as a whole, and tells every
   * replica, whose directories then hide or show the entries.
   */
  async announce(rescan: Rescan, trigger: RescanTrigger, principal?: Principal): Promise<void> {
    const who = { ...actor(principal), teamIds: rescan.teamId === null ? [] : [rescan.teamId] };
    const record = (action: string, target: string, detail: string) =>
      outsideRequest(() =>
        this.audit.record({
          kind: 'change',
          action,
          outcome: 'ok',
          ...who,
          gateway: rescan.gatewaySlug,
          target: target.slice(0, 1024),
          detail: detail.slice(0, 500),
        }),
      );
    const noun = (kind: PinKind) => PINNED_KINDS[kind].noun;
    for (const entry of rescan.quarantined)
      record(
        'rescan.quarantine',
        entry.name,
        `${noun(entry.kind)}: held back (${entry.reason ?? 'finding'}) until approved, ${CAUSE[trigger]}`,
      );
    for (const entry of rescan.released)
      record('rescan.release', entry.name, `${noun(entry.kind)}: served again, ${CAUSE[trigger]}`);
    const summary = {
      kind: 'change' as const,
      action: 'pin.rescan',
      outcome: 'ok' as const,
      ...actor(principal),
      gateway: rescan.gatewaySlug,
      target: rescan.gatewayId,
      detail: summaryOf(rescan, trigger).slice(0, 500),
    };
    // Asked for by hand, the rescan is the request's own entry; after a settings change the
    // request (the edit) is recorded as itself.
    if (trigger === 'rescan') this.audit.record({ ...summary, status: 200 });
    else outsideRequest(() => this.audit.record(summary));
    const pinned = rescan.pinned
      ? rescan.pinned.tools + rescan.pinned.prompts + rescan.pinned.resourceTemplates
      : 0;
    if (rescan.quarantined.length + rescan.released.length + pinned > 0)
      await this.bus.publish({ type: 'catalog.changed', gatewayIds: [rescan.gatewayId] });
  }

  /** `POST /api/v1/gateways/:id/rescan`: one gateway this scope manages. */
  async rescanGateway(
    gatewayId: string,
    scope: TeamScope,
    principal: Principal,
  ): Promise<RescanResultDto> {
    const rescan = await this.dataSource.transaction(async (em) => {
      const gateway = await em
        .getRepository(Gateway)
        .findOne({ where: { id: gatewayId }, lock: { mode: 'pessimistic_write' } });
      if (!gateway || !scope.canSee(gateway.teamId))
        throw new GatewayException(
          GatewayErrorCode.NotFound,
          `Gateway ${gatewayId} does not exist.`,
        );
      scope.assertManage(gateway.teamId, `Gateway '${gateway.name}'`);
      return this.rejudgeIn(em, gateway, { pinAll: false });
    });
    await this.announce(rescan, 'rescan', principal);
    return resultOf(rescan);
  }

  /**
   * `POST /api/v1/gateways/rescan`: every gateway this scope manages (the route is for admins,
   * who manage all), one transaction each, so that a large catalogue never holds one long lock.
   */
  async rescanAll(scope: TeamScope, principal: Principal): Promise<RescanPageDto> {
    const qb = this.dataSource
      .getRepository(Gateway)
      .createQueryBuilder('gateway')
      .select(['gateway.id', 'gateway.teamId'])
      .orderBy('gateway.name', 'ASC');
    const gateways = await scope.visible(qb, 'gateway.team_id').getMany();
    const items: RescanResultDto[] = [];
    for (const gateway of gateways) {
      if (!scope.canManage(gateway.teamId)) continue;
      try {
        items.push(await this.rescanGateway(gateway.id, scope, principal));
      } catch (error) {
        // Deleted since it was listed: nothing of it is left to judge.
        if (error instanceof GatewayException && error.code === GatewayErrorCode.NotFound) continue;
        throw error;
      }
    }
    return { items, total: items.length };
  }
}

const CAUSE: Record<RescanTrigger, string> = {
  rescan: 'on a rescan',
  settings: 'as the gateway’s pinning settings changed',
};

function summaryOf(rescan: Rescan, trigger: RescanTrigger): string {
  const pinned = rescan.pinned
    ? `; pinned ${rescan.pinned.tools} tools, ${rescan.pinned.prompts} prompts, ${rescan.pinned.resourceTemplates} resource templates`
    : '';
  return `${trigger === 'rescan' ? 'rescan' : 'pinning settings changed'}: scanned ${rescan.scanned} definitions (${rescan.withFindings} with findings), held back ${rescan.quarantined.length}, released ${rescan.released.length}${pinned}`;
}

function resultOf(rescan: Rescan): RescanResultDto {
  return {
    gatewayId: rescan.gatewayId,
    gatewaySlug: rescan.gatewaySlug,
    scanned: rescan.scanned,
    withFindings: rescan.withFindings,
    quarantined: rescan.quarantined,
    released: rescan.released,
  };
}

function scanOf(scans: GatewayScans, kind: PinKind, definition: JsonObject): StoredFinding[] {
  switch (kind) {
    case 'tool':
      return scans.tool(definition as unknown as ToolDefinition);
    case 'prompt':
      return scans.prompt(definition as unknown as PromptDefinition);
    case 'resource-template':
      return scans.template(definition as unknown as ResourceTemplateDefinition);
  }
}
