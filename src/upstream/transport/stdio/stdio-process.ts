import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type JSONRPCMessage } from '@modelcontextprotocol/client';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { boundMessage, type MessageLimits } from '../message-bounds';
import { UpstreamFailure } from '../../upstream-error';
import { type StderrRing } from './stderr-ring';
import { seal, unseal } from '../../../common/secret-box';

/** How a stdio upstream is launched: never through a shell, so no argument is ever interpreted. */
export interface StdioLaunch {
  command: string;
  args: readonly string[];
  /** Secrets: added to the child's environment, never logged or returned. */
  env: Readonly<Record<string, string>>;
  cwd: string | null;
}

/** One string per launch: two launches run the same process exactly when their keys are equal. */
export function launchKey(launch: StdioLaunch): string {
  return JSON.stringify([launch.command, launch.args, launch.cwd, launch.env]);
}

/** A gateway row's columns that say how a stdio upstream is launched. */
export interface StdioColumns {
  transport: string;
  stdioCommand: string | null;
  stdioArgs: string[] | null;
  stdioCwd: string | null;
  stdioEnv: string | null;
}

/** The stored form of a stdio environment: names in clear, values sealed. */
export interface SealedStdioEnv {
  stdioEnvNames: string[] | null;
  stdioEnv: string | null;
}

export function sealStdioEnv(key: Buffer, env: Record<string, string>): SealedStdioEnv {
  const names = Object.keys(env);
  return names.length === 0
    ? { stdioEnvNames: [], stdioEnv: null }
    : { stdioEnvNames: names, stdioEnv: seal(key, JSON.stringify(env)) };
}

/** How a stdio gateway is launched, its environment opened; null for HTTP gateways. */
export function stdioLaunchOf(key: Buffer, gateway: StdioColumns): StdioLaunch | null {
  if (gateway.transport !== 'stdio' || gateway.stdioCommand === null) return null;
  return {
    command: gateway.stdioCommand,
    args: gateway.stdioArgs ?? [],
    env:
      gateway.stdioEnv === null
        ? {}
        : (JSON.parse(unseal(key, gateway.stdioEnv)) as Record<string, string>),
    cwd: gateway.stdioCwd,
  };
}

/** What a process reports once a channel owns it. */
export interface StdioProcessHandler {
  message(message: JSONRPCMessage): void;
  /** A stdout line that is not a JSON-RPC message, or one past a limit (`reason` says which). */
  garbage(line: string, reason?: string): void;
  exit(description: string): void;
}

/**
 * Variables of Portico's own environment that a child may see; the rest (database URL, keys,
 * passwords) stays in Portico. As the MCP SDK's stdio transport does.
 */
const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR', 'TZ'];

const KILL_GRACE_MS = 2000;
const MAX_QUEUED = 100;

type Event =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'garbage'; line: string; reason?: string }
  | { kind: 'exit'; description: string };

/**
 * One child process speaking MCP as newline-delimited JSON-RPC on stdin/stdout. It runs in its own
 * process group, which is killed as a whole, so that what it started (npx's child) ends with it.
 */
export class StdioProcess {
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private readonly queued: Event[] = [];
  private handler: StdioProcessHandler | null = null;
  private buffer = '';
  private exitDescription: string | null = null;
  private readonly exitedPromise: Promise<string>;
  private markExited!: (description: string) => void;

  constructor(
    readonly launch: StdioLaunch,
    private readonly stderr: StderrRing,
    /** A longer stdout line is not an MCP message Portico will hold in memory. */
    private readonly limits: MessageLimits,
  ) {
    this.exitedPromise = new Promise((resolve) => (this.markExited = resolve));
    const env: Record<string, string> = {};
    for (const name of INHERITED_ENV) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    this.child = spawn(launch.command, [...launch.args], {
      shell: false,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...env, ...launch.env },
      ...(launch.cwd ? { cwd: launch.cwd } : {}),
      windowsHide: true,
    });
    const prefix = `[${this.child.pid ?? '-'}] `;
    this.child.stdout!.setEncoding('utf8');
    this.child.stderr!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.read(chunk));
    this.child.stderr!.on('data', (chunk: string) => this.stderr.write(chunk, prefix));
    // A write to a process that has gone is reported by its exit, not as an unhandled error.
    this.child.stdin!.on('error', () => undefined);
    this.child.on('error', (error: NodeJS.ErrnoException) =>
      this.onExit(
        error.code === 'ENOENT'
          ? `the command '${launch.command}' was not found`
          : `the command '${launch.command}' could not be started: ${error.message}`,
      ),
    );
    this.child.on('exit', (code, signal) =>
      this.onExit(
        signal ? `the process was ended by ${signal}` : `the process exited with code ${code}`,
      ),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitDescription === null;
  }

  /** Resolves with how the process ended. */
  get exited(): Promise<string> {
    return this.exitedPromise;
  }

  /** Hands the process to its one owner; what it said before is replayed. */
  attach(handler: StdioProcessHandler): void {
    this.handler = handler;
    for (const event of this.queued.splice(0)) this.emit(event);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.alive || !this.child.stdin!.writable)
      return Promise.reject(new Error(this.exitDescription ?? 'the process is not running'));
    return new Promise((resolve, reject) => {
      this.child.stdin!.write(`${JSON.stringify(message)}\n`, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  /** Ends the process group: SIGTERM, then SIGKILL if it lingers. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), KILL_GRACE_MS);
    timer.unref();
    await this.exitedPromise;
    clearTimeout(timer);
    // Children of the leader (npx's node) may outlive it by a moment.
    this.signal('SIGKILL');
  }

  /** At Portico's own exit, when nothing can be awaited. */
  killNow(): void {
    this.signal('SIGKILL');
  }

  /** Resident memory of the process (Linux), in bytes; null when unknown. */
  rssBytes(): number | null {
    if (!this.alive || this.pid === undefined) return null;
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
      return match ? Number(match[1]) * 1024 : null;
    } catch {
      return null;
    }
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() !== '') this.parse(line);
    }
    if (this.buffer.length > this.limits.maxBytes) {
      const start = this.buffer.slice(0, 200);
      this.buffer = '';
      this.emit({
        kind: 'garbage',
        line: start,
        reason: `the stdio process wrote a line longer than ${this.limits.maxBytes} characters, past the limit (UPSTREAM_MESSAGE_LIMIT_BYTES)`,
      });
    }
  }

  private parse(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.emit({ kind: 'garbage', line });
      return;
    }
    // Bounded before the SDK's schema walks it.
    const bounded = boundMessage(json as JSONRPCMessage, this.limits.maxDepth);
    if (bounded instanceof UpstreamFailure) {
      this.emit({ kind: 'garbage', line: line.slice(0, 200), reason: bounded.message });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(bounded);
    if (parsed.success) this.emit({ kind: 'message', message: parsed.data });
    else this.emit({ kind: 'garbage', line });
  }

  private onExit(description: string): void {
    if (this.exitDescription !== null) return;
    this.exitDescription = description;
    this.markExited(description);
    this.emit({ kind: 'exit', description });
  }

  private emit(event: Event): void {
    if (!this.handler) {
      // A process nobody owns yet has nothing to say; one that keeps talking is ended.
      if (this.queued.push(event) > MAX_QUEUED) this.killNow();
      return;
    }
    switch (event.kind) {
      case 'message':
        this.handler.message(event.message);
        break;
      case 'garbage':
        this.handler.garbage(event.line, event.reason);
        break;
      case 'exit':
        this.handler.exit(event.description);
        break;
    }
  }
}
