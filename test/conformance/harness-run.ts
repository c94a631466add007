import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { entryArgs } from '../support/compiled-sources';

const ROOT = join(__dirname, '..', '..');

/**
 * Runs `npm run conformance -- <args>` (run-conformance.ts) as one child process for the
 * requirement sets given (one Portico and one upstream serve them all); each set's passed and
 * scored counts from its verdict line, or an error with the output's tail when one is missing or
 * the harness failed.
 */
export function harnessVerdicts(
  args: string[],
  requirements: readonly string[],
  label: string,
): Promise<Record<string, [number, number]>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...entryArgs('test/conformance/run-conformance.ts'),
        ...args,
        '--requirements',
        requirements.join(','),
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const verdicts: Record<string, [number, number]> = {};
      for (const set of requirements) {
        const verdict = new RegExp(
          `--requirements ${set} \\(${label}\\): (\\d+) of (\\d+) pass`,
        ).exec(output);
        if (verdict) verdicts[set] = [Number(verdict[1]), Number(verdict[2])];
      }
      if (code !== 0 || Object.keys(verdicts).length !== requirements.length)
        reject(
          new Error(
            `conformance ${args.join(' ')} ${requirements.join(',')} failed:\n${output.slice(-6000)}`,
          ),
        );
      else resolve(verdicts);
    });
  });
}
