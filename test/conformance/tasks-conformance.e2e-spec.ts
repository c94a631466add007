import { spawn } from 'node:child_process';
import { join } from 'node:path';

// The conformance suite's Tasks extension scenarios (`tasks-*`, 0.2.0-alpha.12, through npx with
// Node 22) against the Tasks fixture directly and through Portico, as
// `npm run conformance -- --extension tasks` runs them: one run covers every scenario, and every
// scenario that passes directly must pass through Portico.

const ROOT = join(__dirname, '..', '..');

function harness(): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        'test/conformance/run-conformance.ts',
        '--extension',
        'tasks',
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('the conformance suite’s Tasks scenarios, directly and through Portico', () => {
  it('passes through Portico every tasks scenario that passes directly', async () => {
    const { code, output } = await harness();
    const rows = [
      ...output.matchAll(/^(tasks-[a-z-]+)\s+(\w+) (\d+)\/(\d+)\s+(\w+) (\d+)\/(\d+)/gm),
    ];
    if (code !== 0 || rows.length !== 10) throw new Error(output.slice(-6000));
    const through = Object.fromEntries(rows.map((row) => [row[1], row[5]]));
    const direct = Object.fromEntries(rows.map((row) => [row[1], row[2]]));
    for (const [scenario, verdict] of Object.entries(direct))
      if (verdict === 'pass') expect([scenario, through[scenario]]).toEqual([scenario, 'pass']);
    // The fixture passes all nine scenarios that have checks (status notifications has none yet).
    expect(Object.values(direct).filter((verdict) => verdict === 'pass')).toHaveLength(9);
  }, 300_000);
});
