import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { entryArgs } from '../support/compiled-sources';

// The conformance suite's extension scenarios (`tasks-*` and `sep-2640-skills-*`, 0.2.0-alpha.12,
// through npx with Node 22) against each extension's fixture directly and through Portico, as
// `npm run conformance -- --extension <name>` runs them: one run per extension covers every
// scenario, and every scenario that passes directly must pass through Portico.

const ROOT = join(__dirname, '..', '..');

function harness(extension: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...entryArgs('test/conformance/run-conformance.ts'), '--extension', extension],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('the conformance suite’s extension scenarios, directly and through Portico', () => {
  // The fixtures pass every scenario that has checks (Tasks' status notifications has none yet).
  it.each([
    ['tasks', 10, 9],
    ['skills', 3, 3],
  ])(
    'passes through Portico every %s scenario that passes directly',
    async (extension, scenarios, passing) => {
      const { code, output } = await harness(extension);
      const rows = [
        ...output.matchAll(
          /^((?:tasks|sep-2640-skills)-[a-z-]+)\s+(\w+) (\d+)\/(\d+)\s+(\w+) (\d+)\/(\d+)/gm,
        ),
      ];
      if (code !== 0 || rows.length !== scenarios) throw new Error(output.slice(-6000));
      const through = Object.fromEntries(rows.map((row) => [row[1], row[5]]));
      const direct = Object.fromEntries(rows.map((row) => [row[1], row[2]]));
      for (const [scenario, verdict] of Object.entries(direct))
        if (verdict === 'pass') expect([scenario, through[scenario]]).toEqual([scenario, 'pass']);
      expect(Object.values(direct).filter((verdict) => verdict === 'pass')).toHaveLength(passing);
    },
    300_000,
  );
});
