import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Runs `npm run conformance -- <args>` (run-conformance.ts) as a child process for one
 * requirement set; the verdict line's passed and scored counts, or an error with the output's
 * tail when there is none or the harness failed.
 */
export function harnessVerdict(
  args: string[],
  requirements: string,
  label: string,
): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        'test/conformance/run-conformance.ts',
        ...args,
        '--requirements',
        requirements,
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const verdict = new RegExp(
        `--requirements ${requirements} \\(${label}\\): (\\d+) of (\\d+) pass`,
      ).exec(output);
      if (!verdict || code !== 0)
        reject(
          new Error(
            `conformance ${args.join(' ')} ${requirements} failed:\n${output.slice(-6000)}`,
          ),
        );
      else resolve([Number(verdict[1]), Number(verdict[2])]);
    });
  });
}
