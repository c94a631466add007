import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SUITE } from './conformance-suite';

/**
 * How to run the pinned suite: straight from npx's cache of it (Node 22 and the suite, as
 * `npm run conformance` leaves them), which starts in about two seconds; through npx otherwise.
 */
function suiteCommand(): { command: string; args: string[] } {
  const cache = join(homedir(), '.npm', '_npx');
  for (const entry of existsSync(cache) ? readdirSync(cache) : []) {
    const root = join(cache, entry);
    try {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        _npx?: { packages?: string[] };
      };
      const node = join(root, 'node_modules', 'node', 'bin', 'node');
      const suite = join(
        root,
        'node_modules',
        '@modelcontextprotocol',
        'conformance',
        'dist',
        'index.js',
      );
      if (manifest._npx?.packages?.includes(SUITE) && existsSync(node) && existsSync(suite))
        return { command: node, args: [suite] };
    } catch {
      // Not an npx cache entry of the suite.
    }
  }
  return { command: 'npx', args: ['-y', '-p', 'node@22', '-p', SUITE, 'conformance'] };
}

/** One server scenario's verdict line: `Passed: 6/6, 0 failed, 0 warnings`. */
export interface ScenarioVerdict {
  passed: number;
  total: number;
  failed: number;
}

/** Runs one server scenario of the suite against `url`; its verdict, or null without one. */
export function runServerScenario(
  url: string,
  scenario: string,
  extra: string[] = [],
): Promise<{ verdict: ScenarioVerdict | null; output: string }> {
  const { command, args } = suiteCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(
      command,
      [...args, 'server', '--url', url, '--scenario', scenario, ...extra],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', () => {
      const match = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
      resolve({
        verdict: match
          ? { passed: Number(match[1]), total: Number(match[2]), failed: Number(match[3]) }
          : null,
        output,
      });
    });
  });
}
