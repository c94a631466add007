import { spawn } from 'node:child_process';

/** The official MCP conformance suite, pinned; it needs Node 22, which npx brings. */
export const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

/**
 * One run of the suite (`server …` or `client …`); its output goes to the terminal as it comes
 * and is kept for the table.
 */
export function runSuite(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ output: string; code: number }> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['-y', '-p', 'node@22', '-p', SUITE, 'conformance', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      process.stdout.write(chunk);
    });
    child.on('close', (code) => resolve({ output, code: code ?? 1 }));
  });
}
