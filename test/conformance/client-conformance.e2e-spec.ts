import { spawn } from 'node:child_process';
import { join } from 'node:path';

// The official MCP conformance suite's client scenarios with Portico as the client, both
// requirement sets, as `npm run conformance -- client` runs them: the suite comes from the npm
// registry through npx (with Node 22) and runs `portico upstream` (the gateway's own upstream
// code) against a test server per scenario. Every scored scenario must pass, but those the harness
// leaves out as a downstream client's part (client-conformance.ts, EXCLUDED).

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
        'client',
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

describe('the MCP conformance suite’s client scenarios, Portico the client', () => {
  it.each([
    ['2026-07-28', 32],
    ['2025-11-25', 17],
  ])(
    'passes every scored scenario of --requirements %s (%i)',
    async (requirements, total) => {
      const { code, output } = await conformance(requirements);
      const verdict = new RegExp(
        `--requirements ${requirements} \\(Portico as the client\\): (\\d+) of (\\d+) pass`,
      ).exec(output);
      if (!verdict || code !== 0)
        throw new Error(`client conformance ${requirements} failed:\n${output.slice(-6000)}`);
      expect([Number(verdict[1]), Number(verdict[2])]).toEqual([total, total]);
    },
    300_000,
  );
});
