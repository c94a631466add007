import { spawn } from 'node:child_process';
import { join } from 'node:path';

// The official MCP conformance suite through Portico, both requirement sets, as
// `npm run conformance` runs it: the suite comes from the npm registry through npx (with Node 22),
// the upstream is the test suite's own dual-era fixture. Every scored scenario must pass.

const ROOT = join(__dirname, '..', '..');

/** Runs the harness for one requirement set; its output and exit code. */
function conformance(requirements: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        'test/conformance/run-conformance.ts',
        '--requirements',
        requirements,
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('the MCP conformance suite through Portico', () => {
  it.each([
    ['2026-07-28', 37],
    ['2025-11-25', 30],
  ])(
    'passes every scored scenario of --requirements %s (%i)',
    async (requirements, total) => {
      const { code, output } = await conformance(requirements);
      const verdict = new RegExp(
        `--requirements ${requirements} \\(through Portico\\): (\\d+) of (\\d+) pass`,
      ).exec(output);
      if (!verdict || code !== 0)
        throw new Error(`conformance ${requirements} failed:\n${output.slice(-6000)}`);
      expect([Number(verdict[1]), Number(verdict[2])]).toEqual([total, total]);
    },
    300_000,
  );
});
