import { type DataSource } from 'typeorm';
import { type Settings } from '../../../config/settings';
import { GatewayRowRecords } from '../../gateway-records';
import { UpstreamFailure } from '../../upstream-error';
import { type StdioLaunch } from './stdio-process';
import { waitFor } from '../../../../test/support/wait-for';
import { StdioSupervisor } from './stdio-supervisor.service';
import { KEEP_UPDATED_AT } from '../../../common/keep-updated-at';

const STAYS: StdioLaunch = {
  command: 'node',
  args: ['-e', 'setInterval(() => {}, 1000)'],
  env: {},
  cwd: null,
};

/** The gateway row the supervisor reads back before recording health, and what it recorded. */
interface Stored {
  launch: StdioLaunch;
  health: { status: string; lastError: string | null }[];
}

function supervisor(settings: Partial<Settings> = {}, stored?: Stored): StdioSupervisor {
  const config = {
    stdioCommands: ['node'],
    stdioMaxProcesses: 10,
    stdioWarmProcesses: 1,
    stdioIdleSeconds: 60,
    ...settings,
  } as Settings;
  const gateways = {
    findOne: () =>
      Promise.resolve(
        stored && {
          transport: 'stdio',
          stdioCommand: stored.launch.command,
          stdioArgs: stored.launch.args,
          stdioCwd: stored.launch.cwd,
          stdioEnv: null,
        },
      ),
    update: (_id: string, health: Stored['health'][number]) => {
      stored?.health.push(health);
      return Promise.resolve();
    },
  };
  const dataSource = {
    transaction: (work: (em: unknown) => Promise<void>) => work({ getRepository: () => gateways }),
  } as unknown as DataSource;
  return new StdioSupervisor(config, config, new GatewayRowRecords(dataSource, config));
}

describe('StdioSupervisor', () => {
  let under: StdioSupervisor;

  afterEach(async () => {
    await under.onApplicationShutdown();
  });

  it('refuses a command off the allowlist before starting anything', () => {
    under = supervisor({ stdioCommands: ['npx'] });
    expect(() => under.acquire('g', STAYS)).toThrow(
      new UpstreamFailure('unreachable', "the command 'node' is not on STDIO_COMMANDS (npx)"),
    );
    expect(under.status('g')).toBeNull();
  });

  it('starts a spare once a process has started well, hands it out, and warms again after idling', async () => {
    under = supervisor({ stdioIdleSeconds: 1 });
    const first = under.acquire('g', STAYS);
    expect(under.status('g')!.processes.map((p) => p.state)).toEqual(['in-use']);
    under.ready('g', first);
    const warm = () => under.status('g')!.processes.filter((p) => p.state === 'warm');
    expect(warm()).toHaveLength(1);
    const spare = warm()[0]!.pid;

    const second = under.acquire('g', STAYS);
    expect(second.pid).toBe(spare);
    under.ready('g', second);
    expect(warm()).toHaveLength(1);
    // Idle: the spare ends, and the next session's start warms the pool again.
    await waitFor(() => warm().length === 0, 'the idle spare to end');
    const third = under.acquire('g', STAYS);
    under.ready('g', third);
    expect(warm()).toHaveLength(1);

    await under.release('g', first);
    expect(first.alive).toBe(false);
    expect(under.status('g')!.restarts).toBe(0);
  });

  it('backs off after a failed start, with a clear error instead of a wait', async () => {
    under = supervisor();
    const failing = { ...STAYS, args: ['-e', 'process.exit(7)'] };
    const child = under.acquire('g', failing);
    await child.exited;
    await waitFor(() => under.status('g')!.failures === 1, 'the failure to count');
    expect(under.status('g')).toMatchObject({
      lastExit: 'the process exited with code 7',
      restarts: 1,
    });
    expect(() => under.acquire('g', failing)).toThrow(/failed to start 1 time\(s\) in a row/);
    // A changed command is a new start, without the old one's backoff.
    expect(under.acquire('g', STAYS).alive).toBe(true);
  });

  it('records a failed start only while the gateway still runs that command', async () => {
    const failing = { ...STAYS, args: ['-e', 'process.exit(7)'] };
    const stored: Stored = { launch: failing, health: [] };
    under = supervisor({}, stored);
    await under.acquire('g', failing).exited;
    await waitFor(() => stored.health.length === 1, 'the failure to be recorded');
    // Health is observed, not edited: the gateway's updatedAt stays.
    expect(stored.health[0]).toEqual({
      status: 'unreachable',
      lastError: 'the stdio process failed to start: the process exited with code 7',
      ...KEEP_UPDATED_AT,
    });

    // The gateway was edited to a working command, and its sync found it healthy; a session or
    // watch still on the old command starts it once more, and it fails again.
    stored.launch = STAYS;
    const late = { ...failing, args: ['-e', 'process.exit(8)'] };
    await under.acquire('g', late).exited;
    await waitFor(() => under.status('g')!.failures === 1, 'the late failure to count');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stored.health).toHaveLength(1);
  });

  it('keeps within STDIO_MAX_PROCESSES, letting a spare give way first', () => {
    under = supervisor({ stdioMaxProcesses: 2 });
    const a = under.acquire('a', STAYS);
    under.ready('a', a);
    expect(under.status('a')!.processes).toHaveLength(2);
    const b = under.acquire('b', STAYS);
    expect(b.alive).toBe(true);
    expect(under.status('a')!.processes.map((p) => p.state)).toEqual(['in-use']);
    expect(() => under.acquire('c', STAYS)).toThrow(/2 stdio processes are running/);
  });
});
