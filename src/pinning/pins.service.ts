import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { actor, AuditTrail } from '../audit/audit-trail.service';
import { type Principal } from '../auth/principal';
import { type TeamScope } from '../auth/team-scope';
import { EventBus } from '../events/event-bus';
import { Gateway } from '../gateways/gateway.entity';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { PromptWriter } from '../prompts/prompt.writer';
import { ResourceWriter } from '../resources/resource.writer';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { ToolWriter } from '../tools/tool.writer';
import { type Quarantine } from '../pin-state/definition-pin';
import { type PinGatewayResultDto, type PinReviewDto } from './dto/pin-review.dto';
import { writeHeldDefinition } from './held-definition';
import { PinTombstone } from './pin-tombstone.entity';
import { PinErrorCode, PinException } from './pin.exception';
import { pinAllOf } from './pin-all';
import { pinStateOf } from '../pin-state/pin-response';
import {
  clientNameOf,
  PINNED_KINDS,
  type PinKind,
  type PinnedEntry,
  type PinnedKindSpec,
} from './pinned-kinds';

/** The pin columns an operation sets; what it leaves out stays as it is. */
interface PinUpdate {
  pinnedHash?: string | null;
  rejectedHash?: string | null;
  quarantine?: Quarantine | null;
}

/** What one decision did, for the audit trail. */
interface Decision {
  action: string;
  detail: string;
}

/**
 * What operators do with pinned definitions (definition-pin.ts): approve or reject what waits,
 * pin or unpin an entry, pin a whole gateway. Each runs under the gateway's row lock, the lock a
 * sync of the gateway takes before it reads the pins, so a decision and a sync never interleave;
 * each is audited and announced to every replica, whose directories then show or hide the entry.
 */
@Injectable()
export class PinsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly tools: ToolWriter,
    private readonly prompts: PromptWriter,
    private readonly resources: ResourceWriter,
    private readonly bus: EventBus,
    private readonly audit: AuditTrail,
  ) {}

  /** The stored and the held definition of an entry this scope sees, to compare them. */
  async review(kind: PinKind, id: string, scope: TeamScope): Promise<PinReviewDto> {
    const spec = PINNED_KINDS[kind];
    const entry = await this.dataSource.getRepository(spec.entity).findOneBy({ id });
    if (!entry) throw spec.notFound(id);
    const gateway = await this.dataSource.getRepository(Gateway).findOneBy({ id: entry.gatewayId });
    if (!gateway || !scope.canSee(gateway.teamId)) throw spec.notFound(id);
    return {
      pin: pinStateOf(entry),
      stored: spec.definitionOf(entry),
      held: entry.pin.quarantine?.held?.definition ?? null,
      renamedFrom: await this.renamedFrom(spec, entry),
    };
  }

  /**
   * Serves the definition the operator reviewed, named by its hash: the held change (written into
   * the entry) or, when nothing is held aside, the stored definition. On an entry that waits for
   * nothing, pins its definition as it is.
   */
  approve(
    kind: PinKind,
    id: string,
    hash: string,
    scope: TeamScope,
    principal: Principal,
  ): Promise<void> {
    return this.decide(kind, id, scope, principal, async (em, spec, entry) => {
      assertReviewed(spec, entry, hash);
      const held = entry.pin.quarantine?.held;
      if (held) {
        await this.writeDefinition(em, spec, entry.id, held.definition);
        await setPin(em, spec, entry.id, {
          pinnedHash: hash,
          rejectedHash: null,
          quarantine: null,
        });
        return { action: 'pin.approve', detail: `approved the held change ${hash}` };
      }
      const waited = entry.pin.quarantine !== null;
      await setPin(em, spec, entry.id, {
        pinnedHash: hash,
        ...(entry.pin.rejectedHash === hash ? { rejectedHash: null } : {}),
        quarantine: null,
      });
      return {
        action: 'pin.approve',
        detail: waited ? `approved ${hash}` : `pinned ${hash}`,
      };
    });
  }

  /**
   * Refuses the definition the operator reviewed. A held change is dropped and remembered, and the
   * pinned definition is served again; an entry never approved (new, or flagged) is disabled.
   */
  reject(
    kind: PinKind,
    id: string,
    hash: string,
    scope: TeamScope,
    principal: Principal,
  ): Promise<void> {
    return this.decide(kind, id, scope, principal, async (em, spec, entry) => {
      assertReviewed(spec, entry, hash);
      if (entry.pin.quarantine?.held) {
        await setPin(em, spec, entry.id, { rejectedHash: hash, quarantine: null });
        return {
          action: 'pin.reject',
          detail: `rejected ${hash}; the pinned definition is served again`,
        };
      }
      await em.update(spec.entity, entry.id, { enabled: false });
      await setPin(em, spec, entry.id, { rejectedHash: hash, quarantine: null });
      return { action: 'pin.reject', detail: `rejected ${hash}; the entry is disabled` };
    });
  }

  /** Stops pinning an entry: changes the upstream makes are then served as they come. */
  unpin(kind: PinKind, id: string, scope: TeamScope, principal: Principal): Promise<void> {
    return this.decide(kind, id, scope, principal, async (em, spec, entry) => {
      if (entry.pin.quarantine)
        throw new PinException(
          PinErrorCode.Quarantined,
          `This ${spec.noun} waits for review; approve or reject it first.`,
        );
      await setPin(em, spec, entry.id, { pinnedHash: null, rejectedHash: null });
      return { action: 'pin.unpin', detail: `unpinned ${entry.pin.pinnedHash ?? '(not pinned)'}` };
    });
  }

  /** Pins every entry of the gateway that waits for nothing, at its current definition. */
  async pinGateway(
    gatewayId: string,
    scope: TeamScope,
    principal: Principal,
  ): Promise<PinGatewayResultDto> {
    const { gateway, result } = await this.dataSource.transaction(async (em) => {
      const gateway = await lockGateway(em, gatewayId);
      if (!gateway || !scope.canSee(gateway.teamId))
        throw new GatewayException(
          GatewayErrorCode.NotFound,
          `Gateway ${gatewayId} does not exist.`,
        );
      scope.assertManage(gateway.teamId, `Gateway '${gateway.name}'`);
      return { gateway, result: await pinAllOf(em, gatewayId) };
    });
    this.audit.record({
      kind: 'change',
      action: 'pin.gateway',
      outcome: 'ok',
      status: 200,
      ...actor(principal),
      gateway: gateway.slug,
      target: gateway.id,
      detail: `pinned ${result.tools} tools, ${result.prompts} prompts, ${result.resourceTemplates} resource templates`,
    });
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [gatewayId] });
    return result;
  }

  /**
   * One decision on one entry, in a transaction that holds the gateway's row lock: the entry is
   * read under it, so what the operator reviewed is compared with what a sync last stored.
   */
  private async decide(
    kind: PinKind,
    id: string,
    scope: TeamScope,
    principal: Principal,
    work: (em: EntityManager, spec: PinnedKindSpec, entry: PinnedEntry) => Promise<Decision>,
  ): Promise<void> {
    const spec = PINNED_KINDS[kind];
    const { entry, gateway, decision } = await this.dataSource.transaction(async (em) => {
      const repository = em.getRepository(spec.entity);
      const found = await repository.findOne({
        select: { id: true, gatewayId: true },
        where: { id },
      });
      const gateway = found && (await lockGateway(em, found.gatewayId));
      if (!found || !gateway || !scope.canSee(gateway.teamId)) throw spec.notFound(id);
      scope.assertManage(gateway.teamId, `The gateway of this ${spec.noun}`);
      const entry = await repository.findOneBy({ id });
      if (!entry) throw spec.notFound(id);
      return { entry, gateway, decision: await work(em, spec, entry) };
    });
    this.audit.record({
      kind: 'change',
      action: decision.action,
      outcome: 'ok',
      status: 200,
      ...actor(principal),
      gateway: gateway.slug,
      target: clientNameOf(spec, this.names, entry).slice(0, 1024),
      detail: `${spec.noun}: ${decision.detail}`.slice(0, 500),
    });
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [gateway.id] });
  }

  /** The remembered definition of the pinned entry a suspected rename looks like, if any. */
  private async renamedFrom(
    spec: PinnedKindSpec,
    entry: PinnedEntry,
  ): Promise<Record<string, unknown> | null> {
    const from = entry.pin.quarantine?.renamedFrom;
    if (from === undefined) return null;
    const tombstone = await this.dataSource
      .getRepository(PinTombstone)
      .findOneBy({ gatewayId: entry.gatewayId, kind: spec.kind, key: from });
    return tombstone?.definition ?? null;
  }

  /** Writes a held definition into its entry through the kind's own writer (content hash too). */
  private writeDefinition(
    em: EntityManager,
    spec: PinnedKindSpec,
    id: string,
    definition: Record<string, unknown>,
  ): Promise<void> {
    return writeHeldDefinition(
      { tools: this.tools, prompts: this.prompts, resources: this.resources },
      em,
      spec,
      id,
      definition,
    );
  }
}

/**
 * The hash a decision must name: the held change's, or the stored definition's when nothing is
 * held aside. Anything else means the operator looked at a definition that is no longer waiting.
 */
export function reviewHashOf(entry: PinnedEntry): string {
  return entry.pin.quarantine?.held?.hash ?? entry.contentHash;
}

function assertReviewed(spec: PinnedKindSpec, entry: PinnedEntry, hash: string): void {
  if (reviewHashOf(entry) !== hash)
    throw new PinException(
      PinErrorCode.Stale,
      `The definition of this ${spec.noun} changed since you reviewed it; review it again.`,
      { hash: reviewHashOf(entry) },
    );
}

/** The gateway row, locked as a sync of it locks it before reading its pins. */
function lockGateway(em: EntityManager, gatewayId: string): Promise<Gateway | null> {
  return em
    .getRepository(Gateway)
    .findOne({ where: { id: gatewayId }, lock: { mode: 'pessimistic_write' } });
}

// TypeORM's partial-entity type cannot express the jsonb quarantine column, hence the cast.
async function setPin(
  em: EntityManager,
  spec: PinnedKindSpec,
  id: string,
  pin: PinUpdate,
): Promise<void> {
  await em.update(spec.entity, id, { pin } as QueryDeepPartialEntity<PinnedEntry>);
}
