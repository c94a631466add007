import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { ConfigFileSettings } from '../config/slices/config-file.settings';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { EventBus } from '../events/event-bus';
import { PinRescans, type Rescan } from '../pinning/pin-rescans.service';
import { ListedNamesQuery } from '../servers/listed-names.query';
import { OriginalNamesQuery } from '../servers/original-names.query';
import { ServerMembersStore } from '../servers/server-members.store';
import { SyncService } from '../sync/sync.service';
import { Team } from '../teams/team.entity';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { UpstreamOAuth } from '../upstream/oauth/upstream-oauth.service';
import { uniqueViolation } from '../common/unique-violation';
import { ConfigApply } from './config-apply.entity';
import { type ConfigChange, renderPlan } from './config-change';
import { CONFIG_API_VERSION, type ConfigDocument, configYaml } from './config-document';
import { ConfigDocumentErrorCode, ConfigDocumentException } from './config-document.exception';
import { CONFIG_SECTIONS } from './config-sections';
import { type ApplyContext } from './sections/config-section';
import { resolveSecret, type SecretRef, type SecretSource } from './secret-ref';

export interface ConfigApplyOptions {
  dryRun: boolean;
  prune: boolean;
}

export interface ConfigApplyResult {
  applied: boolean;
  changes: ConfigChange[];
  plan: string;
  warnings: string[];
}

/** Thrown inside a dry run's transaction to roll it back with the plan it computed. */
class DryRun extends Error {
  constructor(readonly context: ApplyContext) {
    super('dry run');
  }
}

/**
 * The knobs are read once, from CONFIG_FILE, when a replica starts (some are needed before the
 * database is reached); an apply over REST or the CLI checks them but cannot change them.
 */
const SETTINGS_NOT_APPLIED =
  'The settings block was checked but not applied: replicas read it from CONFIG_FILE when they start.';

/** Advisory lock key of start-up applies: replicas starting together take turns. */
const STARTUP_LOCK_KEY = 0x706f7274;

/**
 * Makes the registry match a configuration document, every section in one transaction, so a
 * document is applied whole or not at all. A dry run is the same transaction, rolled back: the
 * plan it prints is exactly what applying would do.
 */
@Injectable()
export class ConfigService {
  private readonly logger = new Logger(ConfigService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly configFileSettings: ConfigFileSettings,
    private readonly secrets: SecretSettings,
    private readonly serverSettings: ServerSettings,
    private readonly upstreamSettings: UpstreamSettings,
    private readonly names: ToolNameQuery,
    private readonly members: ServerMembersStore,
    private readonly originalNames: OriginalNamesQuery,
    private readonly listedNames: ListedNamesQuery,
    private readonly sync: SyncService,
    private readonly bus: EventBus,
    private readonly oauth: UpstreamOAuth,
    private readonly rescans: PinRescans,
  ) {}

  /** The registry as a document; credentials as references to fill in, never values. */
  async export(): Promise<Record<string, unknown>> {
    const em = this.dataSource.manager;
    const document: Record<string, unknown> = { apiVersion: CONFIG_API_VERSION };
    for (const section of CONFIG_SECTIONS) {
      if (section.legacy) continue;
      document[section.key] = await section.export({
        em,
        names: this.names,
        encryptionKey: this.secrets.encryptionKey,
      });
    }
    return document;
  }

  async exportYaml(): Promise<string> {
    return configYaml(await this.export(), this.serverSettings.publicUrl);
  }

  async apply(document: ConfigDocument, options: ConfigApplyOptions): Promise<ConfigApplyResult> {
    const result = options.dryRun
      ? this.result(false, await this.rehearse(document, options))
      : this.result(
          true,
          await this.afterCommit(
            document,
            options,
            await this.transaction((em) => this.applyIn(em, document, options)),
          ),
        );
    if (document.hasSettings) result.warnings.push(SETTINGS_NOT_APPLIED);
    return result;
  }

  /**
   * Applies the CONFIG_FILE document unless this very document (and the credentials it names) was
   * the last one applied; under a transaction-scoped advisory lock, so replicas starting together
   * apply it once.
   */
  async applyAtStartup(
    document: ConfigDocument,
    text: string,
    prune: boolean,
  ): Promise<ConfigApplyResult | null> {
    const hash = this.fingerprint(text, document, prune);
    const context = await this.transaction(async (em) => {
      await em.query('SELECT pg_advisory_xact_lock($1)', [STARTUP_LOCK_KEY]);
      const last = await em.getRepository(ConfigApply).findOneBy({ source: 'CONFIG_FILE' });
      if (last?.hash === hash) return null;
      const context = await this.applyIn(em, document, { dryRun: false, prune });
      await em
        .getRepository(ConfigApply)
        .save({ source: 'CONFIG_FILE', hash, appliedAt: new Date() });
      return context;
    });
    if (context === null) return null;
    return this.result(true, await this.afterCommit(document, { dryRun: false, prune }, context));
  }

  private async rehearse(
    document: ConfigDocument,
    options: ConfigApplyOptions,
  ): Promise<ApplyContext> {
    try {
      await this.transaction(async (em) => {
        throw new DryRun(await this.applyIn(em, document, options));
      });
    } catch (error) {
      if (error instanceof DryRun) return error.context;
      throw error;
    }
    throw new Error('unreachable: a dry run always rolls back');
  }

  /**
   * The document within `em`. `pending` names the gateways whose first sync the members may still
   * wait for: those this apply creates or reconnects, and on the pass after the syncs, the same
   * ones again (what is still missing then is a warning, never a failure after the first pass has
   * committed).
   */
  private async applyIn(
    em: EntityManager,
    document: ConfigDocument,
    options: ConfigApplyOptions,
    pending: ReadonlySet<string> = new Set(),
  ): Promise<ApplyContext> {
    const rescans: Rescan[] = [];
    const context: ApplyContext = {
      em,
      secrets: this.secretSource(),
      encryptionKey: this.secrets.encryptionKey,
      stdioCommands: this.upstreamSettings.stdioCommands,
      forgetOAuth: (em, gatewayId) => this.oauth.forgetGateway(em, gatewayId),
      rejudgePins: async (em, gateway, pinAll) => {
        const rescan = await this.rescans.rejudgeIn(em, gateway, { pinAll });
        rescans.push(rescan);
        if (rescan.quarantined.length > 0)
          context.warnings.push(
            `Gateway '${gateway.name}': its new pinning settings quarantine ${rescan.quarantined
              .map((entry) => entry.name)
              .join(', ')} until approved.`,
          );
      },
      rescans,
      names: this.names,
      members: this.members,
      originalNames: this.originalNames,
      listedNames: this.listedNames,
      changes: [],
      warnings: [],
      teamIds: new Map((await em.getRepository(Team).find()).map((team) => [team.name, team.id])),
      policyNames: new Set(),
      gatewaysToSync: new Set(),
      pendingSlugs: new Set(pending),
      pendingMembers: false,
      changed: {
        gatewayIds: new Set(),
        serverIds: new Set(),
        userIds: new Set(),
        everyServer: false,
      },
    };
    for (const section of CONFIG_SECTIONS) {
      const items = document.sections.get(section.key);
      if (items !== undefined) await section.upsert(items, context);
    }
    if (options.prune) {
      for (const section of [...CONFIG_SECTIONS].reverse()) {
        const items = document.sections.get(section.key);
        if (items !== undefined) await section.prune(items, context);
      }
    }
    return context;
  }

  /**
   * Tells every replica what changed, syncs the gateways the document created or reconnected
   * (four at a time, outside the transaction: upstreams are never called while it is open), and
   * when members waited for those syncs, applies the document once more to add them.
   */
  private async afterCommit(
    document: ConfigDocument,
    options: ConfigApplyOptions,
    context: ApplyContext,
  ): Promise<ApplyContext> {
    await this.announce(context);
    await this.sync.syncAfterChanges(context.gatewaysToSync);
    if (!context.pendingMembers) return context;
    const second = await this.transaction((em) =>
      this.applyIn(em, document, options, context.pendingSlugs),
    );
    await this.announce(second);
    const stillWaiting = second.warnings;
    return {
      ...context,
      changes: mergeChanges(context.changes, second.changes),
      warnings: stillWaiting.map((warning) =>
        warning.replace(
          "waits for its gateway's first sync",
          'is not in its gateway after its sync; apply again once it is',
        ),
      ),
    };
  }

  private async announce(context: ApplyContext): Promise<void> {
    for (const rescan of context.rescans) await this.rescans.announce(rescan, 'settings');
    const { gatewayIds, serverIds, userIds, everyServer } = context.changed;
    if (gatewayIds.size > 0)
      await this.bus.publish({ type: 'catalog.changed', gatewayIds: [...gatewayIds] });
    // An empty list means every server's directory.
    if (everyServer) await this.bus.publish({ type: 'servers.changed', serverIds: [] });
    else if (serverIds.size > 0)
      await this.bus.publish({ type: 'servers.changed', serverIds: [...serverIds] });
    if (userIds.size > 0) {
      await this.bus.publish({
        type: 'identity.changed',
        userIds: [...userIds],
        tokenIds: [],
        grantIds: [],
      });
    }
  }

  private result(applied: boolean, context: ApplyContext): ConfigApplyResult {
    return {
      applied,
      changes: context.changes,
      plan: renderPlan(context.changes),
      warnings: context.warnings,
    };
  }

  private secretSource(): SecretSource {
    return { env: process.env, secretsDir: this.configFileSettings.configSecretsDir };
  }

  /** The file, the prune flag, and the credentials it names: a rotated secret applies again. */
  private fingerprint(text: string, document: ConfigDocument, prune: boolean): string {
    const hash = createHash('sha256').update(text).update(`\0prune=${prune}`);
    for (const ref of secretRefsIn([...document.sections.values()])) {
      let value: string;
      try {
        value = resolveSecret(ref, this.secretSource(), 'reference');
      } catch {
        value = '\0unavailable';
      }
      hash.update(`\0${JSON.stringify(ref)}=${createHash('sha256').update(value).digest('hex')}`);
    }
    return hash.digest('hex');
  }

  private async transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      const constraint = uniqueViolation(error);
      if (constraint !== null) {
        this.logger.debug(`Config apply refused by ${constraint}`);
        throw new ConfigDocumentException(
          ConfigDocumentErrorCode.Conflict,
          `The document conflicts with existing records (${constraint}); nothing was applied.`,
        );
      }
      throw error;
    }
  }
}

/** Every credential reference in the sections, in document order. */
function secretRefsIn(value: unknown): SecretRef[] {
  if (Array.isArray(value)) return value.flatMap(secretRefsIn);
  if (typeof value !== 'object' || value === null) return [];
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'fromEnv' || keys[0] === 'fromFile'))
    return [value as SecretRef];
  return Object.values(value).flatMap(secretRefsIn);
}

/** The second pass's changes folded into the first's: a server updated twice shows once. */
function mergeChanges(first: ConfigChange[], second: ConfigChange[]): ConfigChange[] {
  const merged = first.map((change) => ({ ...change, fields: [...change.fields] }));
  for (const change of second) {
    const earlier = merged.find((c) => c.kind === change.kind && c.name === change.name);
    if (earlier) earlier.fields.push(...change.fields);
    else merged.push(change);
  }
  return merged;
}
