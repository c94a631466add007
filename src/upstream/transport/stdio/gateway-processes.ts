import { redactSecrets } from '../../redact-secrets';
import { StderrRing } from './stderr-ring';
import { type StdioLaunch, type StdioProcess } from './stdio-process';
import { type StdioGatewayStatus } from './stdio-status';

/** The processes of one gateway on this replica, and how its starts have gone. */
export class GatewayProcesses {
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

  /** Ends the spares; they are no longer starts whose outcome matters. */
  async dropSpares(): Promise<void> {
    const spares = this.warm.splice(0);
    for (const spare of spares) this.starting.delete(spare);
    await Promise.all(spares.map((spare) => spare.kill()));
  }

  status(): StdioGatewayStatus {
    const processes = [
      ...this.warm.map((child) => ({ child, state: 'warm' as const })),
      ...[...this.inUse].map((child) => ({ child, state: 'in-use' as const })),
    ].filter(({ child }) => child.alive);
    return {
      processes: processes.map(({ child, state }) => ({
        pid: child.pid ?? 0,
        state,
        rssBytes: child.rssBytes(),
        startedAt: new Date(child.startedAt).toISOString(),
      })),
      restarts: this.restarts,
      failures: this.failures,
      lastExit: this.lastExit,
      retryAt: this.retryAt > Date.now() ? new Date(this.retryAt).toISOString() : null,
      stderr: this.stderr.tail().map((line) => redactSecrets(line, this.secrets)),
    };
  }
}
