import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { EventBus } from '../events/event-bus';
import { Metrics } from '../observability/metrics';
import {
  PolicyCompileFailure,
  type PolicyDefinition,
  type PolicyErrorListener,
  PolicySet,
} from './policy-set';

/**
 * Reads and compiles the policies of a scope: the directory of each MCP scope builds its set once
 * (Directories), REST invoke uses the global one, kept here until a policy, a server or a team
 * changes on any replica (`servers.changed`).
 */
@Injectable()
export class ScopePolicies implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ScopePolicies.name);
  private everywhereSet?: Promise<PolicySet>;
  private unsubscribe?: () => void;
  readonly onError: PolicyErrorListener;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    metrics: Metrics,
  ) {
    this.onError = (policy, tool, error) => {
      metrics.policyErrors.inc({ policy: policy.name });
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      this.logger.debug(
        `Policy '${policy.name}' failed on tool '${tool}', which is hidden or its call refused: ${message}`,
      );
    };
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'servers.changed' || event.type === 'catalog.changed')
        this.everywhereSet = undefined;
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The compiled policies of a scope: the global ones, and its server's. */
  async load(
    serverId: string | null,
    em: EntityManager = this.dataSource.manager,
  ): Promise<PolicySet> {
    const definitions = await this.definitionsOf(serverId, em);
    if (definitions.length === 0) return PolicySet.OPEN;
    const teamNames = await this.teamNames(em);
    try {
      return await this.compile(definitions, teamNames);
    } catch (error) {
      if (!(error instanceof PolicyCompileFailure)) throw error;
      // Saved policies compiled when saved; one that no longer does (another library version)
      // closes the scope rather than opening what it denied.
      this.logger.error(
        `Policy '${error.policy.name}' no longer compiles, so every tool of this scope is denied until it is fixed: ${error.message}`,
      );
      return PolicySet.closedBy(error.policy);
    }
  }

  /** Compiles policies with this replica's error reporting. */
  compile(
    definitions: readonly PolicyDefinition[],
    teamNames: ReadonlyMap<string, string>,
  ): Promise<PolicySet> {
    return PolicySet.compile(definitions, teamNames, this.onError);
  }

  /** The global policies, for REST invoke; compiled once until something changes. */
  everywhere(): Promise<PolicySet> {
    if (!this.everywhereSet) {
      const loading = this.load(null);
      this.everywhereSet = loading;
      loading.catch(() => {
        if (this.everywhereSet === loading) this.everywhereSet = undefined;
      });
    }
    return this.everywhereSet;
  }

  /** Team names by id: what `principal.teams` shows. */
  async teamNames(em: EntityManager = this.dataSource.manager): Promise<Map<string, string>> {
    const rows: { id: string; name: string }[] = await em.query('SELECT id, name FROM team');
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  private definitionsOf(serverId: string | null, em: EntityManager): Promise<PolicyDefinition[]> {
    return em.query(
      `SELECT id, name, expression, effect, priority, approval FROM policy
       WHERE enabled AND (server_id IS NULL${serverId === null ? '' : ' OR server_id = $1'})
       ORDER BY priority, name`,
      serverId === null ? [] : [serverId],
    );
  }
}
