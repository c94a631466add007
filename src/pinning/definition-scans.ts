import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { EventBus } from '../events/event-bus';
import { type PromptDefinition } from '../prompts/prompt-definition';
import { type ResourceTemplateDefinition } from '../resources/resource-definition';
import { type ListDiff } from '../sync-report/sync-report';
import {
  type KnownTool,
  scanContext,
  scanDefinition,
  ToolNameIndex,
} from '../scanner/definition-scanner';
import { type ToolDefinition } from '../tools/tool-definition';
import { type StoredFinding } from '../pin-state/pin-columns';

/** The scanner as one gateway's sync uses it, one function per kind of definition. */
export interface GatewayScans {
  tool(definition: ToolDefinition): StoredFinding[];
  prompt(definition: PromptDefinition): StoredFinding[];
  template(definition: ResourceTemplateDefinition): StoredFinding[];
}

/**
 * The scans for one list of a sync: made on the first list that brings something new, so that a
 * sync that brings nothing new reads no names.
 */
export type ScansFor = (diff: ListDiff<unknown>) => Promise<GatewayScans>;

/** What scans a list with nothing new: nothing is asked of it. */
const NOTHING_NEW: GatewayScans = { tool: () => [], prompt: () => [], template: () => [] };

/**
 * Scans the definitions a sync brings that it has not seen before, each in the context of every
 * gateway's tools (for names that imitate another gateway's). The index of those names is built
 * once and kept until the catalogue changes, so a sync that changes nothing reads no names.
 */
@Injectable()
export class DefinitionScans implements OnModuleInit, OnModuleDestroy {
  private index: Promise<ToolNameIndex> | null = null;
  private unsubscribe?: () => void;

  constructor(private readonly bus: EventBus) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'catalog.changed') this.index = null;
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** `ownTools`: the upstream names the gateway lists now, which its descriptions may name. */
  forGateway(em: EntityManager, gateway: { slug: string }, ownTools: readonly string[]): ScansFor {
    let scans: Promise<GatewayScans> | undefined;
    return (diff) =>
      diff.added.length + diff.updated.length === 0
        ? Promise.resolve(NOTHING_NEW)
        : (scans ??= this.scansOf(em, gateway.slug, ownTools));
  }

  /** The scans of a rescan, which reads every definition of the gateway again. */
  everything(
    em: EntityManager,
    gateway: { slug: string },
    ownTools: readonly string[],
  ): Promise<GatewayScans> {
    return this.scansOf(em, gateway.slug, ownTools);
  }

  private async scansOf(
    em: EntityManager,
    gatewaySlug: string,
    ownTools: readonly string[],
  ): Promise<GatewayScans> {
    const index = await (this.index ??= this.load(em).catch((error: unknown) => {
      this.index = null;
      throw error;
    }));
    const context = scanContext({ gatewaySlug, ownTools, tools: index });
    return {
      tool: (definition) => scanDefinition({ kind: 'tool', ...definition }, context),
      prompt: (definition) => scanDefinition({ kind: 'prompt', ...definition }, context),
      template: (definition) =>
        scanDefinition({ kind: 'resourceTemplate', ...definition }, context),
    };
  }

  private async load(em: EntityManager): Promise<ToolNameIndex> {
    const tools = await em.query<KnownTool[]>(
      'SELECT gateway_slug AS "gatewaySlug", original_name AS name FROM tool',
    );
    return ToolNameIndex.of(tools);
  }
}
