import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { entryArgs } from './compiled-sources';

const ROOT = join(__dirname, '..', '..');

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The `portico` command in its own process, with only PATH and `env` set. `onStderr` hears all
 * of stderr so far each time more comes (what a person would read while it runs).
 */
export function portico(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (stderr: string) => void,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entryArgs('src/cli/portico.ts'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr);
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
