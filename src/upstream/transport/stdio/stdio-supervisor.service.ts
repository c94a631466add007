import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ServerSettings } from '../../../config/slices/server.settings';
import { UpstreamSettings } from '../../../config/slices/upstream.settings';
import { GatewayRecords } from '../../gateway-records';
import { redactSecrets } from '../../redact-secrets';
import { UpstreamFailure } from '../../upstream-error';
import { doublingWait } from '../../resilience/upstream-retry';
import { GatewayProcesses } from './gateway-processes';
import { StderrRing } from './stderr-ring';
import { launchKey, type StdioLaunch, StdioProcess } from './stdio-process';
import { type StdioGatewayStatus } from './stdio-status';

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;

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
    private readonly serverSettings: ServerSettings,
    private readonly upstreamSettings: UpstreamSettings,
    private readonly records: GatewayRecords,
  ) {
    process.on('exit', this.onExit);
  }

  /** A fresh process for one upstream session; throws an UpstreamFailure. */
  acquire(gatewayId: string, launch: StdioLaunch): StdioProcess {
    this.refuseLaunch(launch);
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
    this.refuseLaunch(launch);
    return this.launched(launch, new StderrRing());
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
    return this.gateways.get(gatewayId)?.status() ?? null;
  }

  /** Ends the gateway's spare processes (its sessions' own end with their sessions). */
  async retire(gatewayId: string): Promise<void> {
    const entry = this.gateways.get(gatewayId);
    if (!entry) return;
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    await entry.dropSpares();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const entry of this.gateways.values()) if (entry.idleTimer) clearTimeout(entry.idleTimer);
    await Promise.all([...this.live].map((child) => child.kill()));
    process.off('exit', this.onExit);
  }

  /** Refuses a launch while Portico stops, or of a command not on STDIO_COMMANDS, as given. */
  private refuseLaunch(launch: StdioLaunch): void {
    if (this.stopping) throw new UpstreamFailure('unreachable', 'Portico is shutting down');
    if (!this.upstreamSettings.stdioCommands.includes(launch.command))
      throw new UpstreamFailure(
        'unreachable',
        `the command '${launch.command}' is not on STDIO_COMMANDS (${this.upstreamSettings.stdioCommands.join(',') || 'empty: stdio is off'})`,
      );
  }

  /** A new process, counted against STDIO_MAX_PROCESSES (making room if it must). */
  private launched(launch: StdioLaunch, stderr: StderrRing): StdioProcess {
    this.makeRoom();
    const child = new StdioProcess(launch, stderr, {
      maxBytes: this.upstreamSettings.upstreamMessageLimitBytes,
      maxDepth: this.serverSettings.jsonMaxDepth,
    });
    this.live.add(child);
    void child.exited.then(() => this.live.delete(child));
    return child;
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
    const child = this.launched(entry.launch, entry.stderr);
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
      entry.retryAt = Date.now() + doublingWait(entry.failures, BACKOFF_BASE_MS, BACKOFF_MAX_MS);
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
      entry.warm.length < this.upstreamSettings.stdioWarmProcesses &&
      this.live.size < this.upstreamSettings.stdioMaxProcesses
    )
      entry.warm.push(this.spawn(entry, gatewayId));
  }

  /** At the limit, a spare of any gateway gives way to a process a session needs. */
  private makeRoom(): void {
    if (this.live.size < this.upstreamSettings.stdioMaxProcesses) return;
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
      `${this.upstreamSettings.stdioMaxProcesses} stdio processes are running on this replica, the most STDIO_MAX_PROCESSES allows`,
    );
  }

  /** Spares of a gateway nobody used for STDIO_IDLE_SECONDS are ended. */
  private touch(entry: GatewayProcesses): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = null;
      entry
        .dropSpares()
        .catch((error: unknown) => this.logger.warn(`Could not end idle spares: ${String(error)}`));
    }, this.upstreamSettings.stdioIdleSeconds * 1000);
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
