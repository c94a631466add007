import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { GatewayRecords } from '../../gateway-records';
import { redactSecrets } from '../../redact-secrets';
import { UpstreamFailure } from '../../upstream-error';
import { StderrRing } from './stderr-ring';
import { launchKey, type StdioLaunch, StdioProcess } from './stdio-process';
import { type StdioGatewayStatus } from './stdio-status';

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;

/** Whether the command may run: its name, exactly as given, is on STDIO_COMMANDS. */
export function commandAllowed(command: string, allowlist: readonly string[]): boolean {
  return allowlist.includes(command);
}

/** The processes of one gateway on this replica. */
class GatewayProcesses {
  readonly stderr = new StderrRing();
  readonly warm: StdioProcess[] = [];
  readonly inUse = new Set<StdioProcess>();
  /** Processes that have not yet finished a handshake: an exit of one of these is a failed start. */
  readonly starting = new Set<StdioProcess>();
  restarts = 0;
  failures = 0;
  lastExit: string | null = null;
  retryAt = 0;
  idleTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly key: string,
    readonly launch: StdioLaunch,
  ) {}

  get secrets(): string[] {
    return Object.values(this.launch.env);
  }
}

/** Ends a gateway's spares; they are no longer starts whose outcome matters. */
async function dropSpares(entry: GatewayProcesses): Promise<void> {
  const spares = entry.warm.splice(0);
  for (const spare of spares) entry.starting.delete(spare);
  await Promise.all(spares.map((spare) => spare.kill()));
}

/**
 * Launches and supervises stdio upstreams on this replica. A process serves one upstream session
 * and is never handed to another, so two downstream sessions never share one. A warm spare per
 * gateway (spawned ahead, never used) saves a new session the cold start; spares idle for
 * STDIO_IDLE_SECONDS are ended. Starts that fail are retried with exponential backoff, during
 * which new sessions get a clear error at once instead of waiting.
 */
@Injectable()
export class StdioSupervisor implements OnApplicationShutdown {
  private readonly logger = new Logger(StdioSupervisor.name);
  private readonly gateways = new Map<string, GatewayProcesses>();
  private readonly live = new Set<StdioProcess>();
  private stopping = false;
  private readonly onExit = () => {
    for (const child of this.live) child.killNow();
  };

  constructor(
    private readonly config: AppConfig,
    private readonly records: GatewayRecords,
  ) {
    process.on('exit', this.onExit);
  }

  /** A fresh process for one upstream session; throws an UpstreamFailure. */
  acquire(gatewayId: string, launch: StdioLaunch): StdioProcess {
    if (this.stopping) throw new UpstreamFailure('unreachable', 'Portico is shutting down');
    if (!commandAllowed(launch.command, this.config.stdioCommands))
      throw new UpstreamFailure(
        'unreachable',
        `the command '${launch.command}' is not on STDIO_COMMANDS (${this.config.stdioCommands.join(',') || 'empty: stdio is off'})`,
      );
    const entry = this.entry(gatewayId, launch);
    const wait = entry.retryAt - Date.now();
    if (wait > 0)
      throw new UpstreamFailure(
        'unreachable',
        `the stdio process failed to start ${entry.failures} time(s) in a row (${entry.lastExit ?? 'no reason'}); next attempt in ${Math.ceil(wait / 1000)} s`,
      );
    this.touch(entry);
    let child = entry.warm.shift();
    while (child && !child.alive) child = entry.warm.shift();
    child ??= this.spawn(entry, gatewayId);
    entry.inUse.add(child);
    this.refill(entry, gatewayId);
    return child;
  }

  /**
   * A throw-away process for the era probe, outside the gateway's spares and sessions: a server
   * that exits on a request before `initialize` (rmcp does) is no failed start, and no session
   * ever gets a process that saw the probe.
   */
  probe(launch: StdioLaunch): StdioProcess {
    if (this.stopping) throw new UpstreamFailure('unreachable', 'Portico is shutting down');
    if (!commandAllowed(launch.command, this.config.stdioCommands))
      throw new UpstreamFailure(
        'unreachable',
        `the command '${launch.command}' is not on STDIO_COMMANDS (${this.config.stdioCommands.join(',') || 'empty: stdio is off'})`,
      );
    this.makeRoom();
    const child = new StdioProcess(launch, new StderrRing(), {
      maxBytes: this.config.upstreamMessageLimitBytes,
      maxDepth: this.config.jsonMaxDepth,
    });
    this.live.add(child);
    void child.exited.then(() => this.live.delete(child));
    return child;
  }

  /** The process finished its handshake: the gateway starts fine again. */
  ready(gatewayId: string, child: StdioProcess): void {
    const entry = this.gateways.get(gatewayId);
    // A process of a command the gateway no longer runs says nothing about the current one.
    if (!entry?.inUse.has(child)) return;
    entry.starting.delete(child);
    if (entry.failures > 0) {
      entry.failures = 0;
      entry.retryAt = 0;
      void this.markHealth(gatewayId, entry, null);
    }
    this.refill(entry, gatewayId);
  }

  /** The session is over: its process ends with it, never to serve another. */
  async release(gatewayId: string, child: StdioProcess): Promise<void> {
    this.gateways.get(gatewayId)?.inUse.delete(child);
    await child.kill();
  }

  /** What this replica runs for the gateway; null when it has never run it. */
  status(gatewayId: string): StdioGatewayStatus | null {
    const entry = this.gateways.get(gatewayId);
    if (!entry) return null;
    const processes = [
      ...entry.warm.map((child) => ({ child, state: 'warm' as const })),
      ...[...entry.inUse].map((child) => ({ child, state: 'in-use' as const })),
    ].filter(({ child }) => child.alive);
    return {
      processes: processes.map(({ child, state }) => ({
        pid: child.pid ?? 0,
        state,
        rssBytes: child.rssBytes(),
        startedAt: new Date(child.startedAt).toISOString(),
      })),
      restarts: entry.restarts,
      failures: entry.failures,
      lastExit: entry.lastExit,
      retryAt: entry.retryAt > Date.now() ? new Date(entry.retryAt).toISOString() : null,
      stderr: entry.stderr.tail().map((line) => redactSecrets(line, entry.secrets)),
    };
  }

  /** Ends the gateway's spare processes (its sessions' own end with their sessions). */
  async retire(gatewayId: string): Promise<void> {
    const entry = this.gateways.get(gatewayId);
    if (!entry) return;
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    await dropSpares(entry);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const entry of this.gateways.values()) if (entry.idleTimer) clearTimeout(entry.idleTimer);
    await Promise.all([...this.live].map((child) => child.kill()));
    process.off('exit', this.onExit);
  }

  private entry(gatewayId: string, launch: StdioLaunch): GatewayProcesses {
    const key = launchKey(launch);
    const existing = this.gateways.get(gatewayId);
    if (existing?.key === key) return existing;
    // The gateway was edited: what was spawned for the old command serves nobody new.
    if (existing) void this.retire(gatewayId);
    const entry = new GatewayProcesses(key, launch);
    this.gateways.set(gatewayId, entry);
    return entry;
  }

  private spawn(entry: GatewayProcesses, gatewayId: string): StdioProcess {
    this.makeRoom();
    const child = new StdioProcess(entry.launch, entry.stderr, {
      maxBytes: this.config.upstreamMessageLimitBytes,
      maxDepth: this.config.jsonMaxDepth,
    });
    this.live.add(child);
    entry.starting.add(child);
    entry.stderr.push(`[${child.pid ?? '-'}] started: ${entry.launch.command}`);
    void child.exited
      .then((description) => this.exited(entry, gatewayId, child, description))
      .catch((error: unknown) =>
        this.logger.warn(
          `Could not handle the end of a stdio process of ${gatewayId}: ${String(error)}`,
        ),
      );
    return child;
  }

  private exited(
    entry: GatewayProcesses,
    gatewayId: string,
    child: StdioProcess,
    description: string,
  ): void {
    this.live.delete(child);
    const failedStart = entry.starting.delete(child);
    const warmIndex = entry.warm.indexOf(child);
    if (warmIndex !== -1) entry.warm.splice(warmIndex, 1);
    const released = !entry.inUse.has(child) && warmIndex === -1;
    entry.inUse.delete(child);
    entry.stderr.push(`[${child.pid ?? '-'}] ${released ? 'stopped' : description}`);
    if (released || this.stopping || this.gateways.get(gatewayId) !== entry) return;
    entry.lastExit = redactSecrets(description, entry.secrets);
    entry.restarts += 1;
    if (failedStart) {
      entry.failures += 1;
      entry.retryAt =
        Date.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (entry.failures - 1));
      this.logger.warn(
        `A stdio process of gateway ${gatewayId} failed to start: ${entry.lastExit}`,
      );
      void this.markHealth(
        gatewayId,
        entry,
        `the stdio process failed to start: ${entry.lastExit}`,
      );
    } else {
      this.logger.warn(`A stdio process of gateway ${gatewayId} ended: ${entry.lastExit}`);
    }
    // A crashed spare is replaced once the backoff allows.
    const delay = Math.max(0, entry.retryAt - Date.now());
    setTimeout(() => {
      try {
        this.refill(entry, gatewayId);
      } catch (error) {
        this.logger.warn(`Could not start a spare of gateway ${gatewayId}: ${String(error)}`);
      }
    }, delay).unref();
  }

  /** Keeps STDIO_WARM_PROCESSES spares of a gateway in use lately, within STDIO_MAX_PROCESSES. */
  private refill(entry: GatewayProcesses, gatewayId: string): void {
    if (this.stopping || this.gateways.get(gatewayId) !== entry || entry.idleTimer === null) return;
    if (entry.failures > 0 || entry.starting.size > entry.warm.length) return;
    while (
      entry.warm.length < this.config.stdioWarmProcesses &&
      this.live.size < this.config.stdioMaxProcesses
    )
      entry.warm.push(this.spawn(entry, gatewayId));
  }

  /** At the limit, a spare of any gateway gives way to a process a session needs. */
  private makeRoom(): void {
    if (this.live.size < this.config.stdioMaxProcesses) return;
    for (const entry of this.gateways.values()) {
      const spare = entry.warm.shift();
      if (spare) {
        this.live.delete(spare);
        entry.starting.delete(spare);
        void spare.kill();
        return;
      }
    }
    throw new UpstreamFailure(
      'unreachable',
      `${this.config.stdioMaxProcesses} stdio processes are running on this replica, the most STDIO_MAX_PROCESSES allows`,
    );
  }

  /** Spares of a gateway nobody used for STDIO_IDLE_SECONDS are ended. */
  private touch(entry: GatewayProcesses): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = null;
      dropSpares(entry).catch((error: unknown) =>
        this.logger.warn(`Could not end idle spares: ${String(error)}`),
      );
    }, this.config.stdioIdleSeconds * 1000);
    entry.idleTimer.unref();
  }

  /** Records how the gateway starts; see GatewayRecords.recordStdioHealth. */
  private async markHealth(
    gatewayId: string,
    entry: GatewayProcesses,
    error: string | null,
  ): Promise<void> {
    try {
      await this.records.recordStdioHealth(gatewayId, entry.key, error);
    } catch (failure) {
      this.logger.warn(`Could not record the health of gateway ${gatewayId}: ${String(failure)}`);
    }
  }
}
